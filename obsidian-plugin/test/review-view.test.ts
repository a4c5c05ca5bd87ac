import { afterEach, describe, expect, it, vi } from "vitest";
import type { Review } from "../src/api-types";
import { diffLineKind, EMPTY_QUEUE_TEXT, renderDiff, renderReviews, type ReviewActions } from "../src/render/review-list";
import { ReviewView } from "../src/views/review-view";
import { FakeBridge, FakeHost, makeLeaf, review, settle } from "./helpers";
import { notices } from "./obsidian-shim";

function actions(): ReviewActions & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    approve: vi.fn(async (r: Review) => void calls.push(`approve ${r.id}`)),
    reject: vi.fn(async (r: Review, reason: string) => void calls.push(`reject ${r.id} ${reason}`)),
    openNote: vi.fn((path: string) => void calls.push(`open ${path}`)),
  };
}

describe("renderDiff", () => {
  it("colours additions, deletions and hunk headers", () => {
    expect(["--- a/x.md", "+++ b/x.md", "@@ -1 +1 @@", "-old", "+new", " same"].map(diffLineKind)).toEqual([
      "file",
      "file",
      "hunk",
      "del",
      "add",
      "context",
    ]);
    const root = document.createElement("div");
    renderDiff(root, review().diff ?? "");
    const classes = [...root.querySelectorAll(".vb-diff-line")].map((line) => line.className.replace("vb-diff-line ", ""));
    expect(classes).toEqual(["vb-diff-file", "vb-diff-file", "vb-diff-hunk", "vb-diff-context", "vb-diff-del", "vb-diff-add"]);
    expect(root.querySelector(".vb-diff-add")?.textContent).toBe("+JWT access tokens expire after 12 h.");
  });
});

describe("renderReviews", () => {
  it("shows author, reason, impact and policy, and runs the buttons", async () => {
    const root = document.createElement("div");
    document.body.appendChild(root);
    const act = actions();
    renderReviews(root, [review(), review({ id: 13, state: "conflict", path: "team/practices/code_review.md", reason: null, why: "old name of reason" })], act);
    const cards = root.querySelectorAll<HTMLElement>(".vb-review");
    expect(cards).toHaveLength(2);
    const first = cards[0] as HTMLElement;
    const field = (card: HTMLElement, name: string): string | null | undefined => card.querySelector(`[data-field="${name}"]`)?.textContent;
    expect(field(first, "Author")).toBe("agent:claude-code");
    expect(field(first, "Reason")).toBe("tokens now live 12 h");
    expect(field(first, "Impact")).toBe("high");
    expect(field(first, "Policy")).toBe("human-written note");
    expect(field(cards[1] as HTMLElement, "Reason")).toBe("old name of reason");
    expect(cards[1]?.classList.contains("vb-review-conflict")).toBe(true);
    expect(first.querySelector(".vb-review-hint")).toBeNull();
    expect(cards[1]?.querySelector(".vb-review-hint")?.textContent).toContain("The note changed since");

    first.querySelector<HTMLButtonElement>(".vb-approve")?.click();
    const second = cards[1] as HTMLElement;
    const form = second.querySelector<HTMLFormElement>(".vb-reject-form");
    expect(form?.hidden).toBe(true);
    second.querySelector<HTMLButtonElement>(".vb-reject")?.click();
    expect(form?.hidden).toBe(false);
    const reason = second.querySelector<HTMLInputElement>(".vb-reject-reason");
    if (reason) reason.value = "  still 24 h  ";
    form?.dispatchEvent(new Event("submit", { cancelable: true }));
    second.querySelector<HTMLAnchorElement>(".vb-review-path")?.click();
    await settle();
    expect(act.calls).toEqual(["approve 12", "reject 13 still 24 h", "open team/practices/code_review.md"]);
  });

  it("says when nothing waits", () => {
    const root = document.createElement("div");
    renderReviews(root, [], actions());
    expect(root.textContent).toBe(EMPTY_QUEUE_TEXT);
  });
});

describe("ReviewView", () => {
  afterEach(() => {
    document.body.textContent = "";
  });

  function bridgeWith(reviews: Review[]): FakeBridge {
    return new FakeBridge({
      "GET /v1/reviews": () => ({ body: reviews.filter((r) => r.state === "pending" || r.state === "conflict") }),
      "GET /v1/reviews/14": () => ({ body: review({ id: 14, diff: "+only in the detail\n" }) }),
      "POST /v1/reviews/12/approve": () => {
        const found = reviews.find((r) => r.id === 12);
        if (found) found.state = "approved";
        return { body: found };
      },
      "POST /v1/reviews/13/reject": () => {
        const found = reviews.find((r) => r.id === 13);
        if (found) found.state = "rejected";
        return { body: found };
      },
    });
  }

  async function open(bridge: FakeBridge): Promise<{ view: ReviewView; host: FakeHost }> {
    const host = new FakeHost(bridge);
    const { leaf } = makeLeaf();
    const view = new ReviewView(leaf, host);
    document.body.appendChild(view.containerEl);
    await view.onOpen();
    return { view, host };
  }

  it("lists the open reviews, fetching a missing diff, and approves and rejects through the API", async () => {
    const reviews = [review(), review({ id: 13, path: "team/practices/code_review.md" })];
    const bridge = bridgeWith(reviews);
    const { view } = await open(bridge);
    const root = view.contentEl;
    expect(root.querySelectorAll(".vb-review")).toHaveLength(2);

    root.querySelector<HTMLButtonElement>('[data-review-id="12"] .vb-approve')?.click();
    await settle();
    expect(bridge.calls("POST", "/v1/reviews/12/approve")).toHaveLength(1);
    expect(bridge.calls("POST", "/v1/reviews/12/approve")[0]?.headers.Authorization).toBe("Bearer secret");
    expect(root.querySelector(".vb-banner")?.textContent).toBe("Approved: UPDATE engineering/auth/jwt_expiry.md");
    expect(notices.at(-1)).toContain("approved the edit to engineering/auth/jwt_expiry.md");
    expect(root.querySelectorAll(".vb-review")).toHaveLength(1);

    root.querySelector<HTMLButtonElement>('[data-review-id="13"] .vb-reject')?.click();
    const input = root.querySelector<HTMLInputElement>('[data-review-id="13"] .vb-reject-reason');
    if (input) input.value = "we still use 24 h";
    root.querySelector<HTMLButtonElement>('[data-review-id="13"] .vb-reject-confirm')?.click();
    await settle();
    expect(JSON.parse(bridge.calls("POST", "/v1/reviews/13/reject")[0]?.body ?? "")).toEqual({ reason: "we still use 24 h" });
    expect(root.querySelector(".vb-empty")?.textContent).toBe("No agent edits waiting for review.");

    bridge.routes["GET /v1/reviews"] = () => ({ body: [{ ...review({ id: 14 }), diff: undefined }] });
    await view.refresh();
    expect(root.querySelector(".vb-diff")?.textContent).toBe("+only in the detail\n");
  });

  it("shows the 409 message and refreshes", async () => {
    const reviews = [review()];
    const bridge = bridgeWith(reviews);
    bridge.routes["POST /v1/reviews/12/approve"] = () => {
      reviews[0] = review({ state: "conflict", diff: "@@ -1 +1 @@\n-fresh\n+diff\n" });
      return { status: 409, body: { error: { code: "conflict", message: "engineering/auth/jwt_expiry.md changed since the review: see the fresh diff" } } };
    };
    const { view } = await open(bridge);
    const before = bridge.calls("GET", "/v1/reviews").length;
    view.contentEl.querySelector<HTMLButtonElement>(".vb-approve")?.click();
    await settle();
    const banner = view.contentEl.querySelector<HTMLElement>(".vb-banner");
    expect(banner?.textContent).toBe("engineering/auth/jwt_expiry.md changed since the review: see the fresh diff");
    expect(banner?.classList.contains("vb-banner-warning")).toBe(true);
    expect(bridge.calls("GET", "/v1/reviews").length).toBe(before + 1);
    expect(view.contentEl.querySelector(".vb-review-conflict .vb-diff-del")?.textContent).toBe("-fresh");
  });

  it("refreshes on review events and polling ticks, not on other events", async () => {
    const bridge = bridgeWith([review()]);
    const { view, host } = await open(bridge);
    const count = (): number => bridge.calls("GET", "/v1/reviews").length;
    expect(count()).toBe(1);
    host.emit({ id: "1", event: "entry.changed", data: { path: "a.md" } });
    await settle();
    expect(count()).toBe(1);
    host.emit({ id: "2", event: "review.added", data: { id: 15 } });
    await settle();
    expect(count()).toBe(2);
    host.emit(null);
    await settle();
    expect(count()).toBe(3);
    await view.onClose();
    host.emit(null);
    await settle();
    expect(count()).toBe(3);
  });

  it("shows why the list cannot be read", async () => {
    const bridge = new FakeBridge({
      "GET /v1/reviews": () => ({ status: 401, body: { error: { code: "unauthorized", message: "no" } } }),
    });
    const { view } = await open(bridge);
    expect(view.contentEl.querySelector(".vb-error")?.textContent).toBe("The bridge refused the token: check Settings → Vault Bridge");
  });
});
