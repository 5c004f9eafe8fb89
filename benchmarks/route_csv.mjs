// End to end in Node, for benchmarks/bench_end_to_end.py: read an inventory CSV with plain fs, split
// it, and route every row with the seed's own route (imported from tests/reference/seed_router.mjs,
// the seed's code transcribed unchanged: the custody object is built per row), then print how
// many rows got each outcome.
//
//   node benchmarks/route_csv.mjs inventory.csv     -> {"rows", "seconds", "cpuSeconds", "counts"}
//
// The split is honest for the file's shape: a line without a quote is split at its commas; a line
// with one goes through a small RFC 4180 field reader (doubled quotes, commas inside quotes). A
// quoted line break is not read (the benchmark's file has none; such a file is refused, exit 2).
import { readFileSync } from "node:fs";
import { route } from "../tests/reference/seed_router.mjs";

function quotedFields(line) {
  const out = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let value = "";
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new Error("a quoted cell is not closed on its line");
        value += line.slice(i, q);
        if (line[q + 1] === '"') { value += '"'; i = q + 2; } else { i = q + 1; break; }
      }
      out.push(value);
    } else {
      const c = line.indexOf(",", i);
      out.push(line.slice(i, c < 0 ? line.length : c));
      i = c < 0 ? line.length : c;
    }
    if (i >= line.length) return out;
    i++; // the comma
  }
}

const flag = (cell) => cell === "" ? null : cell.trim().toLowerCase() === "true";
const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
const text = readFileSync(process.argv[2], "utf8");
const lines = text.split("\n");
const header = lines[0].replace(/\r$/, "").split(",");
const at = Object.fromEntries(header.map((h, k) => [h, k]));
const counts = {};
let rows = 0;
for (let k = 1; k < lines.length; k++) {
  let line = lines[k];
  if (line.endsWith("\r")) line = line.slice(0, -1);
  if (line === "") continue;
  let cells;
  try {
    cells = line.includes('"') ? quotedFields(line) : line.split(",");
  } catch (e) {
    console.error(`line ${k + 1}: ${e.message}`);
    process.exit(2);
  }
  const row = { id:cells[at.id], initiator:cells[at.initiator], operation:cells[at.operation], shape:cells[at.shape],
    uri:cells[at.uri], mime:cells[at.mime], bytes:Number(cells[at.bytes]), current:flag(cells[at.current]),
    allowed:flag(cells[at.allowed]), sideEffects:flag(cells[at.sideEffects]), provenance:cells[at.provenance],
    requiresCurrent:flag(cells[at.requiresCurrent]) };
  const r = route(row);
  const outcome = r.accepted ? r.selected : r.rejection;
  counts[outcome] = (counts[outcome] || 0) + 1;
  rows++;
}
const c = process.cpuUsage(c0);
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(JSON.stringify({ rows, seconds, cpuSeconds:(c.user + c.system) / 1e6, counts }));
