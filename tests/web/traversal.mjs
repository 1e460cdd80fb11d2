// The static files of the web page: served with their Content-Type and Cache-Control, and no way
// out of web/ — paths with "..", encoded "..", hidden segments or backslashes are refused (400 or
// 404) and never return a file from outside. Raw HTTP over a socket, so nothing normalizes the
// path on the way (as curl --path-as-is).
import net from "node:net";
import { main, startServer, check, log } from "./harness.mjs";

function rawGet(base, path) {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(port), hostname);
    const chunks = [];
    sock.setTimeout(30000, () => sock.destroy(new Error(`no answer to GET ${path} within 30 s`)));
    sock.on("connect", () => sock.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`));
    sock.on("data", (d) => chunks.push(d));
    sock.on("error", reject);
    sock.on("end", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const head = text.slice(0, text.indexOf("\r\n\r\n"));
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      if (!m) return reject(new Error(`GET ${path}: not an HTTP answer: ${text.slice(0, 200)}`));
      const headers = {};
      for (const line of head.split("\r\n").slice(1)) {
        const i = line.indexOf(":");
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(m[1]), headers, body: text.slice(head.length + 4) });
    });
  });
}

const REFUSED = [
  "/../../etc/passwd",
  "/%2e%2e/%2e%2e/etc/passwd",
  "/%2E%2E/%2E%2E/etc/passwd",
  "/..%2f..%2fetc%2fpasswd",
  "/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "/node_modules/../../CMakeLists.txt",
  "/node_modules/three/../../../CMakeLists.txt",
  "/js/../../CMakeLists.txt",
  "/js/%2e%2e/%2e%2e/CMakeLists.txt",
  "/..\\..\\CMakeLists.txt",
  "/js/..%5c..%5cCMakeLists.txt",
  "//etc/passwd",
  "/./index.html/../../CMakeLists.txt",
  "/.git/config",
  "/node_modules/.tplan-installed-lock.json",
  "/node_modules/.package-lock.json",
  "/../web/index.html",
  "/index.html%00.js", // the server never decodes %00: such a path names no file
  "/index.html%00/../../CMakeLists.txt",
];
// Odd but inside web/: whatever the status, nothing from outside (a query string is not a path).
const NO_LEAK = ["/js/main.js?x=/../../CMakeLists.txt"];
// what a file from outside web/ would contain
const LEAK = /root:x?:0:0|project\(|\[core\]|cmake_minimum_required/;

const SERVED = [
  ["/", /^text\/html/, /<script type="importmap">/],
  ["/index.html", /^text\/html/, /tplan/],
  ["/js/main.js", /^text\/javascript/, /import/],
  ["/css/style.css", /^text\/css/, /--accent/],
  ["/favicon.svg", /^image\/svg\+xml/, /<svg/],
  ["/node_modules/three/build/three.module.js", /^text\/javascript/, /export/],
  ["/node_modules/three/examples/jsm/controls/OrbitControls.js", /^text\/javascript/, /OrbitControls/],
];

await main(async ({ tplan, outDir }) => {
  const { base } = await startServer(tplan, outDir);
  for (const [path, type, body] of SERVED) {
    const r = await rawGet(base, path);
    log(`GET ${path} -> ${r.status} ${r.headers["content-type"]}, Cache-Control: ${r.headers["cache-control"]}`);
    check(r.status === 200, `GET ${path}: status ${r.status}`);
    check(type.test(r.headers["content-type"] || ""), `GET ${path}: Content-Type ${r.headers["content-type"]}`);
    check(r.headers["cache-control"], `GET ${path}: no Cache-Control header`);
    check(body.test(r.body), `GET ${path}: unexpected body`);
  }
  for (const path of REFUSED) {
    const r = await rawGet(base, path);
    log(`GET ${path} -> ${r.status}`);
    check(r.status === 400 || r.status === 404, `GET ${path}: status ${r.status}, expected 400 or 404`);
    check(!LEAK.test(r.body), `GET ${path}: the answer contains a file from outside web/`);
  }
  for (const path of NO_LEAK) {
    const r = await rawGet(base, path);
    log(`GET ${path} -> ${r.status}`);
    check(!LEAK.test(r.body), `GET ${path}: the answer contains a file from outside web/`);
  }
  const h = await rawGet(base, "/v1/health");
  check(h.status === 200 && /"status":"ok"/.test(h.body), `the server is not healthy after the requests: ${h.status} ${h.body}`);
}, { browser: false });
