// The browser's drawing path of draw_graph (widgets/draw/browser_view.py): Graphviz compiled to
// WebAssembly (@viz-js/viz, shipped in the package as viz.js) lays out and draws the same DOT
// that the `dot` program would, for a learner who has no Graphviz installed.
//
// The model holds:
//   library  "IPY_MODEL_<id>" of the one VizLibrary widget, whose `code` is viz.js (sent once per
//            kernel, not once per graph);
//   levels   [{boxes, pictures: [{rankdir, dot}, ...]}, ...]: the candidate pictures, from all the
//            ops to the smallest summary, in the order widgets/draw/layout.py tries them;
//   fit      {width_in, min_scale, show_all, fixed}: the notebook's width in inches and the
//            smallest scale that keeps 9 pt text at 9 px; `fixed`: draw levels[0].pictures[0] as is;
//   frame    {rankdir: dot}: when set (the backward stepper), what to draw in the chosen layout;
//   step     the stepper's position, shown as data-step on the picture.
// The choice is the same as layout.fit_to_notebook's on the `dot` path: left to right at full
// size, else top to bottom at full size, else the narrower shrunk to the width but not below
// min_scale, else the next (smaller) summary.

const CACHE_KEY = "__minitorch_viz__";

function vizFor(model) {
  const ref = model.get("library");
  const version = model.get("library_version");
  const cache = (globalThis[CACHE_KEY] ??= new Map());
  if (!cache.has(version)) {
    const loading = (async () => {
      const library = await model.widget_manager.get_model(ref.replace(/^IPY_MODEL_/, ""));
      const url = URL.createObjectURL(new Blob([library.get("code")], { type: "text/javascript" }));
      try {
        const viz = await import(/* webpackIgnore: true */ url);
        return await viz.instance();
      } finally {
        URL.revokeObjectURL(url);
      }
    })();
    loading.catch(() => cache.delete(version));  // the next graph tries again
    cache.set(version, loading);
  }
  return cache.get(version);
}

// Width and height in inches of Graphviz's layout at full size ("graph <scale> <w> <h>").
function naturalSize(viz, dot) {
  const header = viz.renderString(dot, { format: "plain" }).split("\n", 1)[0].trim().split(/\s+/);
  return [Number(header[2]), Number(header[3])];
}

// The picture to draw: {rankdir, dot, size} (size: Graphviz's "w,h" in inches, or null: full size).
export function choose(viz, levels, fit) {
  if (fit.fixed) {
    return { ...levels[0].pictures[0], size: null, boxes: levels[0].boxes };
  }
  for (let i = 0; i < levels.length; i++) {
    const sized = [];
    for (const picture of levels[i].pictures) {
      const [width, height] = naturalSize(viz, picture.dot);
      if (width <= fit.width_in) {
        return { ...picture, size: null, boxes: levels[i].boxes };
      }
      sized.push({ ...picture, width, height });
    }
    const narrowest = sized.reduce((a, b) => (b.width < a.width ? b : a));
    const last = i === levels.length - 1;
    if (fit.show_all || narrowest.width * fit.min_scale <= fit.width_in || last) {
      const size = `${fit.width_in},${Number(narrowest.height.toPrecision(4))}`;
      return { rankdir: narrowest.rankdir, dot: narrowest.dot, size, boxes: levels[i].boxes };
    }
  }
  throw new Error("no picture to draw");
}

function draw(el, viz, chosen, dot, step) {
  const options = chosen.size ? { graphAttributes: { size: chosen.size } } : {};
  const svg = viz.renderSVGElement(dot, options);
  svg.style.maxWidth = "100%";  // as JupyterLab shows an SVG output: never wider than the notebook
  svg.style.height = "auto";
  const box = document.createElement("div");
  box.className = "minitorch-graph";
  box.dataset.rankdir = chosen.rankdir || "";
  box.dataset.size = chosen.size || "";
  box.dataset.boxes = String(chosen.boxes ?? "");
  if (step !== null && step !== undefined && step >= 0) {
    box.classList.add("minitorch-stepper-graph");
    box.dataset.step = String(step);
  }
  box.appendChild(svg);
  el.replaceChildren(box);
}

function fail(el, error) {
  const note = document.createElement("pre");
  note.className = "minitorch-graph-error";
  note.textContent = `draw_graph: the browser could not draw this graph (${error && error.message ? error.message : error}).`
    + " Installing Graphviz's dot program draws it in Python instead: minitorch-course doctor says how.";
  el.replaceChildren(note);
}

async function render({ model, el }) {
  el.classList.add("minitorch-graph-view");
  let viz;
  try {
    viz = await vizFor(model);
  } catch (error) {
    fail(el, error);
    return;
  }
  let chosen = null;
  const update = () => {
    try {
      chosen ??= choose(viz, model.get("levels"), model.get("fit"));
      const frame = model.get("frame") || {};
      const dot = frame[chosen.rankdir] ?? Object.values(frame)[0] ?? chosen.dot;
      draw(el, viz, chosen, dot, model.get("step"));
    } catch (error) {
      fail(el, error);
    }
  };
  const relayout = () => { chosen = null; update(); };
  update();
  model.on("change:frame", update);
  model.on("change:step", update);
  model.on("change:levels", relayout);
  return () => {
    model.off("change:frame", update);
    model.off("change:step", update);
    model.off("change:levels", relayout);
  };
}

export default { render };
