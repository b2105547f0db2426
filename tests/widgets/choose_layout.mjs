// The browser path's layout choice, run in Node with the package's viz.js and graph_view.js
// (tests/widgets/test_browser_drawing.py copies both to .mjs files and passes their paths).
// stdin: a JSON list of plans {levels, fit}; stdout: for each, the choice and the scale
// Graphviz draws it at ({rankdir, boxes, size, scale, width_in}).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [vizPath, viewPath] = process.argv.slice(2);
const { instance } = await import(pathToFileURL(vizPath).href);
const { choose } = await import(pathToFileURL(viewPath).href);
const viz = await instance();

const plans = JSON.parse(readFileSync(0, "utf8"));
const results = plans.map(plan => {
  const chosen = choose(viz, plan.levels, plan.fit);
  const options = { format: "plain" };
  if (chosen.size) options.graphAttributes = { size: chosen.size };
  const header = viz.renderString(chosen.dot, options).split("\n", 1)[0].trim().split(/\s+/);
  return { rankdir: chosen.rankdir, boxes: chosen.boxes, size: chosen.size, scale: Number(header[1]),
           width_in: Number(header[2]) * Number(header[1]) };
});
process.stdout.write(JSON.stringify({ graphviz: viz.graphvizVersion, results }));
