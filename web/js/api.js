// The /v1 API of `tplan serve` (docs/service.md), as used by the page: JSON requests with the
// bearer token when one is set, errors as ApiError (the server's {"error":{code,message,field}}).
const TOKEN_KEY = "tplan.token";

export class ApiError extends Error {
  constructor(status, code, message, field) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field || null;
    this.body = null; // the answer's JSON, when it had one (a 503 health: {"status":"draining",...})
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

export function setToken(t) {
  if (t) sessionStorage.setItem(TOKEN_KEY, t);
  else sessionStorage.removeItem(TOKEN_KEY);
}

// Called with the ApiError of a 401; resolves once the user entered a token (set by main.js).
let onUnauthorized = null;
export function setUnauthorizedHandler(fn) {
  onUnauthorized = fn;
}

function headers(extra) {
  const h = { ...extra };
  const t = token();
  if (t) h.Authorization = `Bearer ${t}`;
  return h;
}

async function errorOf(res) {
  let body = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON: described by the status below */
  }
  const e = body && body.error;
  if (e && typeof e.code === "string") return new ApiError(res.status, e.code, e.message || e.code, e.field);
  const err = new ApiError(res.status, "http_" + res.status, `HTTP ${res.status} ${res.statusText}`);
  err.body = body;
  return err;
}

// fetch() with the token; on 401 asks for a token (again, until one works) and retries. A request
// that was sent with an older token than the current one retries at once without asking.
async function send(path, init = {}) {
  for (;;) {
    const used = token();
    let res;
    try {
      res = await fetch(path, { ...init, headers: headers(init.headers) });
    } catch (err) {
      throw new ApiError(0, "network", `cannot reach the server (${err.message})`);
    }
    if (res.ok) return res;
    const err = await errorOf(res);
    if (res.status !== 401 || !onUnauthorized) throw err;
    if (token() === used) await onUnauthorized(err);
  }
}

export async function getJson(path) {
  return (await send(path)).json();
}

export async function postJson(path, body) {
  const res = await send(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return res.json();
}

export async function del(path) {
  const res = await send(path, { method: "DELETE" });
  return res.status === 204 ? null : res.json();
}

export async function getText(path) {
  return (await send(path)).text();
}

export async function getBytes(path, onProgress) {
  const res = await send(path);
  const total = Number(res.headers.get("Content-Length")) || 0;
  if (!res.body || !onProgress) return res.arrayBuffer();
  const reader = res.body.getReader();
  const chunks = [];
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    got += value.length;
    onProgress(got, total);
  }
  const out = new Uint8Array(got);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out.buffer;
}

// A URL for links and EventSource, which cannot send headers: the token as ?access_token=.
export function withToken(path) {
  const t = token();
  if (!t) return path;
  return path + (path.includes("?") ? "&" : "?") + "access_token=" + encodeURIComponent(t);
}

export const api = {
  // a 503 health (draining, store_failed, store_unreachable) still says what the server is doing
  health: () => getJson("/v1/health").catch((err) => {
    if (err.status === 503 && err.body && typeof err.body.status === "string") return err.body;
    throw err;
  }),
  cluster: () => getJson("/v1/cluster"),
  domains: () => getJson("/v1/domains"),
  jobs: (query = {}) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== "") q.set(k, v);
    const s = q.toString();
    return getJson("/v1/jobs" + (s ? "?" + s : ""));
  },
  job: (id) => getJson(`/v1/jobs/${id}`),
  submit: (body) => postJson("/v1/jobs", body),
  cancel: (id) => postJson(`/v1/jobs/${id}/cancel`, {}),
  stop: (id) => postJson(`/v1/jobs/${id}/stop`, {}),
  remove: (id) => del(`/v1/jobs/${id}`),
  script: (id) => getText(`/v1/jobs/${id}/script`),
  // many-worlds browsing: every world's summary, whether it matches the query, the matches ranked
  worlds: (id, where = "", rank = "") => {
    const q = new URLSearchParams();
    if (where) q.set("where", where);
    if (rank) q.set("rank", rank);
    const s = q.toString();
    return getJson(`/v1/jobs/${id}/worlds` + (s ? "?" + s : ""));
  },
  eventsUrl: (id) => withToken(`/v1/jobs/${id}/events`),
};
