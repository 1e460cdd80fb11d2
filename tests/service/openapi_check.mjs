// The service tests' OpenAPI check: node openapi_check.mjs OPENAPI.json RESPONSES.json
// 1. The document served at /v1/openapi.json must be a valid OpenAPI 3.1 document
//    (@seriousme/openapi-schema-validator: the official OpenAPI 3.1 JSON schema).
// 2. Every recorded response (method, path, status, content type, body) must be documented: its path
//    matches one of the document's paths, its method and status are listed there, and a JSON body
//    validates against the response's schema (ajv, JSON Schema 2020-12, the dialect of OpenAPI 3.1);
//    a method the path does not list must be a 405 that matches components.responses.MethodNotAllowed.
// Prints "openapi: N responses checked" and exits 1 with every problem listed otherwise.
import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const [docPath, recPath] = process.argv.slice(2);
const doc = JSON.parse(readFileSync(docPath, "utf8"));
const responses = JSON.parse(readFileSync(recPath, "utf8"));
const problems = [];

const validator = new Validator();
const res = await validator.validate(doc);
if (!res.valid) {
  problems.push("the document is not valid OpenAPI: " + JSON.stringify(res.errors).slice(0, 2000));
}
if (validator.version !== "3.1") {
  problems.push(`the document is OpenAPI ${validator.version}, not 3.1`);
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(doc, "openapi.json");

// "/v1/jobs/{id}/plan" -> /^\/v1\/jobs\/[^/]+\/plan$/
const routes = Object.keys(doc.paths || {}).map((p) => ({
  template: p,
  re: new RegExp("^" + p.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+") + "$"),
}));
const pointer = (parts) => parts.map((s) => String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
const compiled = new Map();
let checked = 0;
for (const r of responses) {
  const path = r.path.split("?")[0];
  const route = routes.find((x) => x.re.test(path));
  const where = `${r.method} ${r.path} ${r.status}`;
  if (!route) {
    if (!path.startsWith("/v1") && path !== "/metrics") continue; // the static page is not part of the API
    // no such route: a 404 (or the token's 401) with the documented error object
    const validate = ajv.getSchema("openapi.json#/components/schemas/Error");
    if (r.status !== 404 && r.status !== 401) problems.push(`${where}: an unknown route must answer 404`);
    else if (!validate(JSON.parse(r.body))) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
    ++checked;
    continue;
  }
  const op = doc.paths[route.template][r.method.toLowerCase()];
  if (!op) {
    // a method the path does not list: 405 with the document's MethodNotAllowed answer
    const answer = ((doc.components || {}).responses || {}).MethodNotAllowed;
    if (r.status !== 405) problems.push(`${where}: the method is not documented`);
    else if (!answer) problems.push(`${where}: components.responses.MethodNotAllowed is not documented`);
    else {
      const ref = "openapi.json#/components/responses/MethodNotAllowed/content/application~1json/schema";
      if (!compiled.has(ref)) compiled.set(ref, ajv.compile({ $ref: ref }));
      const validate = compiled.get(ref);
      if (!validate(JSON.parse(r.body))) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
      ++checked;
    }
    continue;
  }
  const status = String(r.status);
  const resp = (op.responses || {})[status] ? status : (op.responses || {}).default ? "default" : null;
  if (!resp) {
    problems.push(`${where}: status ${status} is not documented for ${r.method} ${route.template}`);
    continue;
  }
  const content = op.responses[resp].content || {};
  const type = (r.type || "").split(";")[0].trim();
  if (!type) continue; // no body (204, 304)
  if (!content[type]) {
    problems.push(`${where}: content type ${type} is not documented (documented: ${Object.keys(content)})`);
    continue;
  }
  // a file's byte range, gzip, or not JSON: documented, not parsed
  if (type !== "application/json" || r.encoding || r.status === 206) continue;
  const ref = "openapi.json#/" + pointer(["paths", route.template, r.method.toLowerCase(), "responses", resp,
    "content", "application/json", "schema"]);
  if (!compiled.has(ref)) compiled.set(ref, ajv.compile({ $ref: ref }));
  const validate = compiled.get(ref);
  let body;
  try {
    body = JSON.parse(r.body);
  } catch (e) {
    problems.push(`${where}: the body is not JSON: ${e.message}`);
    continue;
  }
  if (!validate(body)) {
    problems.push(`${where}: ${ajv.errorsText(validate.errors)}; body ${r.body.slice(0, 300)}`);
  }
  ++checked;
}
if (problems.length) {
  console.log(problems.slice(0, 40).join("\n"));
  console.log(`openapi: ${problems.length} problem(s) in ${responses.length} responses`);
  process.exit(1);
}
console.log(`openapi: document valid (OpenAPI 3.1), ${checked} JSON responses of ${responses.length} checked`);
