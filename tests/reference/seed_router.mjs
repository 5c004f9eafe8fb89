// Reference oracle for differential tests: the routing logic of the seed's Node artifact
// (../shared/seeds/000_*, "Runnable artifact"), transcribed unchanged so the lab's Python router
// and sweep can be compared with it case by case. It is test infrastructure, not lab code.
//
//   node seed_router.mjs fixture          -> prints the seed payload with its sha256 (as the artifact)
//   node seed_router.mjs batch < cases    -> reads a JSON array of cases, prints one outcome a line
//   node seed_router.mjs columns FILE [ROUNDS [OUT]] -> reads the columnar JSON FILE, prints a JSON summary
// Imported as a module (benchmarks/route_csv.mjs), it exports `route` and `policy` and runs nothing.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const sha256 = (value) => createHash("sha256").update(value).digest("hex");
export const policy = Object.freeze({ embedLimitBytes: 4096, now: "2026-09-04T12:00:00.000Z" });

export function route(input) {
  const custody = { actor:input.initiator, permissionChecked:true, uri:input.uri, mime:input.mime, provenance:input.provenance, bytes:input.bytes, retrievedAt:policy.now, sideEffects:input.sideEffects };
  if (!input.allowed) return { id:input.id, accepted:false, rejection:"permission-denied", custody };
  if (!input.current && input.requiresCurrent) return { id:input.id, accepted:false, rejection:"stale-content", custody };
  if (input.initiator === "application" && input.sideEffects) return { id:input.id, accepted:false, rejection:"resource-mislabeled-side-effect", custody };
  if (input.shape === "embedded-resource" && input.bytes > policy.embedLimitBytes) return { id:input.id, accepted:false, rejection:"embed-over-budget", custody };
  const legal = input.initiator === "application"
    ? ["listed-resource","templated-resource"].includes(input.shape)
    : ["resource-link","embedded-resource","structured-tool-result"].includes(input.shape);
  if (!legal) return { id:input.id, accepted:false, rejection:"control-shape-mismatch", custody };
  return { id:input.id, accepted:true, selected:input.shape, custody };
}

const main = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (main) {
  const mode = process.argv[2];
  if (mode === "fixture") {
    const cases = JSON.parse(readFileSync(process.argv[3], "utf8")).cases;
    const base = Object.fromEntries(cases.map((c) => [c.id, c]));
    const accepted = cases.map(route);
    const adversarial = [
      route({ ...base["live-status"], id:"stale-status", current:false, requiresCurrent:true }),
      route({ ...base["handbook"], id:"denied-handbook", allowed:false }),
      route({ ...base["approve-draft"], id:"oversize-embed", bytes:9000 }),
      route({ ...base["handbook"], id:"mislabeled-mutation", sideEffects:true }),
    ];
    const payload = { fixture:"mcp-context-custody-v1", remoteServerCalled:false, policy, accepted, adversarial };
    console.log(JSON.stringify({ ...payload, sha256:sha256(JSON.stringify(payload)) }, null, 2));
  } else if (mode === "batch") {
    const cases = JSON.parse(readFileSync(0, "utf8"));
    const out = cases.map((c) => JSON.stringify(route(c)));
    process.stdout.write(out.join("\n") + "\n");
  } else if (mode === "columns") {
    // Columnar input: {"n", "initiator":[..codes], "shape":[..], "bytes":[..], "current", "allowed",
    // "sideEffects", "requiresCurrent": arrays of 0/1, "initiators":[names], "shapes":[names]}; optional
    // "uri", "mime", "provenance": one string a row (a realistic frame), else the same on every row.
    //   columns FILE [ROUNDS [OUTCOMES]]: the loop runs ROUNDS times in this process (default 1; the
    //   later rounds are warm), each round's wall and CPU seconds printed; OUTCOMES gets one outcome a line.
    const d = JSON.parse(readFileSync(process.argv[3], "utf8"));
    const rounds = Math.max(1, Number(process.argv[4] || 1));
    const rows = new Array(d.n);
    for (let i = 0; i < d.n; i++) {
      rows[i] = { id:"c" + i, initiator:d.initiators[d.initiator[i]], operation:"read", shape:d.shapes[d.shape[i]],
        uri:d.uri ? d.uri[i] : "u://x", mime:d.mime ? d.mime[i] : "m/x", bytes:d.bytes[i], current:d.current[i] === 1, allowed:d.allowed[i] === 1,
        sideEffects:d.sideEffects[i] === 1, provenance:d.provenance ? d.provenance[i] : "p", requiresCurrent:d.requiresCurrent[i] === 1 };
    }
    const outcomes = new Array(d.n);
    const times = [], cpu = [];
    for (let k = 0; k < rounds; k++) {
      const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
      for (let i = 0; i < d.n; i++) {
        const r = route(rows[i]);
        outcomes[i] = r.accepted ? r.selected : r.rejection;
      }
      times.push(Number(process.hrtime.bigint() - t0) / 1e9);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1e6);
    }
    const hash = createHash("sha256");
    for (let i = 0; i < d.n; i++) hash.update(outcomes[i] + "\n");
    if (process.argv[5]) writeFileSync(process.argv[5], outcomes.join("\n") + "\n");
    console.log(JSON.stringify({ n:d.n, seconds:times[0], times, cpu, outcomesSha256:hash.digest("hex") }));
  } else {
    console.error("usage: node seed_router.mjs fixture CASES.json | batch < cases.json | columns FILE");
    process.exit(2);
  }
}
