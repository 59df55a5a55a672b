// The status bar's account of the narrator's model, as the backend reports
// it: loading (with progress), failed to load, missing (the rule-based
// planner answers), or loaded (which file, and where it runs: on the
// processor or on a graphics card).

import { useTranslation } from "react-i18next";
import type { ModelView } from "../api";
import i18n from "../i18n";
import { formatPercent } from "../i18n/format";
import { whereWords } from "../models";

/** What the status bar says about the model, and how it looks. */
export function modelStatusOf(model: ModelView | null): { text: string; state: string; title: string } {
  const t = i18n.t;
  if (!model) return { text: t("modelStatus.unknown"), state: "unknown", title: "" };
  const { loading } = model;
  if (loading.active) {
    return {
      text: t("modelStatus.loading", { percent: formatPercent(loading.progress ?? 0) }),
      state: "loading",
      title: loading.path ?? model.model.defaultPath,
    };
  }
  if (loading.error) {
    return {
      text: t("modelStatus.failed"),
      state: "failed",
      title: loading.error.message,
    };
  }
  if (!model.model.path) {
    return {
      text: t("modelStatus.missing"),
      state: "missing",
      title: t("modelStatus.missingTitle", { path: model.model.defaultPath }),
    };
  }
  const m = model.model;
  const plannerWhere = whereWords(m.plannerRunsOn);
  const writerWhere = whereWords(m.writerRunsOn);
  if (!m.shared && m.writer !== "none") {
    // Where the writer runs; the planner's too when it runs elsewhere.
    const same = m.plannerRunsOn != null && m.plannerRunsOn === m.writerRunsOn;
    const parts = [
      plannerWhere && !same
        ? t("modelStatus.plansWhere", { model: m.planner, where: plannerWhere })
        : t("modelStatus.plans", { model: m.planner }),
      writerWhere && !same
        ? t("modelStatus.writesWhere", { model: m.writer, where: writerWhere })
        : t("modelStatus.writes", { model: m.writer }),
    ];
    if (same && writerWhere) parts.push(t("modelStatus.both", { where: writerWhere }));
    return {
      text: t("modelStatus.model", { what: parts.join(", ") }),
      state: "loaded",
      title: `${m.path} · ${m.writerPath ?? m.writer}`,
    };
  }
  const where = writerWhere ?? plannerWhere;
  return {
    text: t("modelStatus.model", { what: where ? `${m.planner}, ${where}` : m.planner }),
    state: "loaded",
    title: m.path ?? "",
  };
}

export function ModelStatusBar({ model }: { model: ModelView | null }) {
  // Follows the window's language.
  useTranslation();
  const { text, state, title } = modelStatusOf(model);
  return (
    <span className={`planner model-${state}`} title={title} data-testid="planner" data-state={state}>
      {text}
    </span>
  );
}
