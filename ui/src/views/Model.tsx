// Model: the narrator in use, a progress bar while a model loads, and a
// file dialog to choose another GGUF file.

import { useEffect, useState } from "react";
import { api, asAppError, type AppError, type ModelView } from "../api";
import { sentenceOf } from "../errors";

interface Props {
  model: ModelView | null;
  onError: (e: AppError) => void;
  onRefresh: () => void;
}

export function ModelPanel({ model, onError, onRefresh }: Props) {
  const [folders, setFolders] = useState<{ skillRoots: string[]; sessionDb: string; skillsState: string } | null>(null);
  useEffect(() => {
    api.folders().then(setFolders, (e) => onError(asAppError(e)));
  }, [onError]);

  const choose = async () => {
    try {
      const path = await api.chooseModelFile();
      if (typeof path === "string") {
        await api.loadModel(path);
        onRefresh();
      }
    } catch (e) {
      onError(asAppError(e));
    }
  };

  if (!model) return <p className="muted">…</p>;
  const pct = Math.round((model.loading.progress ?? 0) * 100);
  return (
    <section className="model" aria-label="Model">
      <dl className="facts">
        <dt>Narrator</dt>
        <dd data-testid="model-planner">{model.model.planner === "rules" ? "rule-based planner (no model loaded)" : model.model.planner}</dd>
        <dt>Model file</dt>
        <dd>{model.model.path ?? "—"}</dd>
        <dt>Default model</dt>
        <dd>{model.model.defaultPath}</dd>
      </dl>
      {model.loading.active && (
        <div className="progress-block">
          <p>Loading {model.loading.path ?? "the default model"}…</p>
          <progress max={100} value={pct} data-testid="model-progress" />
          <span> {pct}%</span>
        </div>
      )}
      {model.loading.error && (
        <p className="error-text" role="alert" data-testid="model-error">
          Could not load the model. {sentenceOf(model.loading.error)}{" "}
          <span className="error-message">{model.loading.error.message}</span>
        </p>
      )}
      <button onClick={choose} disabled={model.loading.active}>
        Choose a GGUF file…
      </button>
      {folders && (
        <>
          <h2>Folders</h2>
          <dl className="facts small">
            <dt>Skills</dt>
            <dd>{folders.skillRoots.join(" · ")}</dd>
            <dt>Sessions</dt>
            <dd>{folders.sessionDb}</dd>
            <dt>Skill choices</dt>
            <dd>{folders.skillsState}</dd>
          </dl>
        </>
      )}
    </section>
  );
}
