// The bodies of the bridge's HTTP API, as docs/api.md describes them. The plugin only reads
// them: every decision (tiers, review policy, lifecycle) is the bridge's.

export interface Health {
  status: string;
  version: string;
}

export interface Status {
  version: string;
  vault: string;
  state_dir: string;
  notes: number;
  generation: number;
  unresolved_links: number;
  llm_model: string | null;
  watching: boolean;
  pending_reviews: number;
  /** Absent from bridges older than the dense channel. */
  semantic?: SemanticStatus;
}

/** The dense channel: which sentence encoder, and how far embedding the vault got. */
export interface SemanticStatus {
  /** Null when the channel is off. */
  model: string | null;
  state: "off" | "embedding" | "ready";
  /** Passages (sections of notes) with a vector. */
  sections: number;
  /** Notes whose passages all have vectors. */
  embedded: number;
  /** Notes waiting to be embedded (those in flight included). */
  pending: number;
  /** Notes whose language is known: the first pass reads them all before embedding any. */
  languages_known?: number;
  /** Notes per detected language. */
  languages?: Record<string, number>;
}

/** One note like the asked one; `score` is the cosine of its best passage to that note. */
export interface RelatedNote {
  path: string;
  title: string;
  status: string | null;
  score: number;
}

/** `GET /v1/similar/{path}`: `reason` says why `similar` is empty (not embedded yet, a language the model skips). */
export interface SimilarResult {
  path: string;
  similar: RelatedNote[];
  reason: string | null;
}

export interface QueryRequest {
  query: string;
  budget_words?: number;
  limit?: number;
  scope?: string;
}

/** One block of a source note; `line` is 0-based, `block_id` the Obsidian `^id`. */
export interface Excerpt {
  text: string;
  line: number | null;
  block_id: string | null;
  heading: string;
}

export interface Source {
  path: string;
  title: string;
  status: string | null;
  score: number;
  excerpt: string;
  via: "search" | "relation";
  related_from: string | null;
  blocks: Excerpt[];
}

/**
 * An answer, or the ranked excerpts when `answer` is null. A tier of 3 or 4 with no answer means
 * the question needed an LLM that is not configured or failed; `message` says which.
 */
export interface QueryResult {
  query: string;
  /** Names this answer: `from_query` when opening a source, and `query_id` in feedback. */
  query_id: string;
  answer: string | null;
  tier: number;
  latency_ms: number;
  ood: boolean;
  sources: Source[];
  generation: number;
  relevance: number;
  message: string | null;
  words: number;
  /** The notes the answer was taken from; the bridge already credited each as used. */
  answered_from: string[];
}

/** How a use of a source was counted: once per note per answer. */
export type Credit = "credited" | "already_credited";

export interface Relation {
  target: string;
  path: string | null;
  reason: string | null;
  alias: string | null;
  heading: string | null;
  block: string | null;
  origin: string;
}

/** `GET /v1/entries/{path}`; `credit` is set when it was opened with `from_query`. */
export interface EntryOut {
  path: string;
  title: string;
  hash: string;
  frontmatter: Record<string, unknown>;
  body: string;
  text: string;
  relations: Relation[];
  backlinks: string[];
  problems: string[];
  lifecycle: Record<string, unknown>;
  credit: Credit | null;
}

/** `POST /v1/feedback`: did this source of that answer help? */
export interface FeedbackRequest {
  query_id: string;
  path: string;
  helpful: boolean;
}

/** `credit` is null for a not-helpful verdict, which credits nothing. */
export interface FeedbackResult {
  query_id: string;
  path: string;
  helpful: boolean;
  credited: boolean;
  credit: Credit | null;
}

export type OperationStatus = "applied" | "pending_review" | "failed";

export interface OperationResult {
  index: number;
  type: string;
  path: string;
  status: OperationStatus;
  message: string;
  review_id: string | number | null;
}

export interface CurateResult {
  results: OperationResult[];
  counts: Partial<Record<OperationStatus | "total", number>>;
  /** LLM curation only: why the model's output could not be used in full. */
  error?: string | null;
}

export interface CurateTaskStarted {
  task_id: string;
}

export type TaskState = "queued" | "running" | "done" | "failed";

export interface Task {
  id: string;
  state: TaskState;
  result: CurateResult | null;
  error: string | null;
}

export type ReviewState = "pending" | "conflict" | "applied" | "approved" | "rejected";
export type ReviewFilter = ReviewState | "open" | "all";

/** A review. `reason` is the operation's one-line why (`why` in older bridges). */
export interface Review {
  id: string | number;
  state: ReviewState;
  type: string;
  path: string;
  author: string;
  reason?: string | null;
  why?: string | null;
  impact?: string | null;
  policy?: string | null;
  created?: string;
  base_hash?: string | null;
  diff?: string;
  operation?: Record<string, unknown>;
  resolution?: string | null;
  note?: string | null;
}

export interface Forecast {
  text: string;
  to: string | null;
  to_status: string | null;
  in_days: number | null;
}

export interface Lifecycle {
  path: string;
  importance: number;
  recency: number;
  maturity: string;
  status: string | null;
  managed?: boolean;
  access_count?: number;
  update_count?: number;
  last_update: string | null;
  last_access?: string | null;
  stale?: boolean;
  forecast: Forecast;
}

/** One event of `GET /v1/events`; `data` is the parsed JSON payload. */
export interface BridgeEvent {
  id: string;
  event: string;
  data: Record<string, unknown>;
}
