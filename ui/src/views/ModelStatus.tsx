// The status bar's account of the narrator's model, as the backend reports
// it: loading (with progress), failed to load, missing (the rule-based
// planner answers), or loaded (which file, and where it runs: on the
// processor or on a graphics card).

import type { ModelView } from "../api";

/** What the status bar says about the model, and how it looks. */
export function modelStatusOf(model: ModelView | null): { text: string; state: string; title: string } {
  if (!model) return { text: "Narrator: …", state: "unknown", title: "" };
  const { loading } = model;
  if (loading.active) {
    const pct = Math.round((loading.progress ?? 0) * 100);
    return { text: `Loading model ${pct}%`, state: "loading", title: loading.path ?? model.model.defaultPath };
  }
  if (loading.error) {
    return {
      text: "Model failed to load: rule-based planner",
      state: "failed",
      title: loading.error.message,
    };
  }
  if (!model.model.path) {
    return {
      text: "No model: rule-based planner",
      state: "missing",
      title: `No model at ${model.model.defaultPath} (narratoria models download smollm2)`,
    };
  }
  const m = model.model;
  if (!m.shared && m.writer !== "none") {
    // Where the writer runs; the planner's too when it runs elsewhere.
    const same = m.plannerRunsOn != null && m.plannerRunsOn === m.writerRunsOn;
    const plannerWhere = m.plannerRunsOn && !same ? ` ${m.plannerRunsOn}` : "";
    const writerWhere = same ? `, both ${m.writerRunsOn}` : m.writerRunsOn ? ` ${m.writerRunsOn}` : "";
    return {
      text: `Model: ${m.planner} plans${plannerWhere}, ${m.writer} writes${writerWhere}`,
      state: "loaded",
      title: `${m.path} · ${m.writerPath ?? m.writer}`,
    };
  }
  const where = m.writerRunsOn ?? m.plannerRunsOn;
  return { text: `Model: ${m.planner}${where ? `, ${where}` : ""}`, state: "loaded", title: m.path ?? "" };
}

export function ModelStatusBar({ model }: { model: ModelView | null }) {
  const { text, state, title } = modelStatusOf(model);
  return (
    <span className={`planner model-${state}`} title={title} data-testid="planner" data-state={state}>
      {text}
    </span>
  );
}
