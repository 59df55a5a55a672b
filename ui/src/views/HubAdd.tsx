// "Add from Hugging Face": the player pastes a repository's or a .gguf
// file's link, sees the GGUF files it offers with their sizes, picks one
// and downloads it with a progress bar (checked against the Hub's SHA-256);
// it then appears in "Your models" (docs/models.md, "Models from Hugging Face").

import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, asAppError, type AppError, type DownloadProgress, type HubFile, type InstalledModel } from "../api";
import { sentenceOf } from "../errors";
import { humanSize } from "../models";
import { DownloadBar } from "./DownloadBar";

/** What the field is doing now. */
type Step =
  | { kind: "idle" }
  | { kind: "listing" }
  | { kind: "listed"; link: string; files: HubFile[] }
  | { kind: "downloading"; link: string; files: HubFile[]; progress: DownloadProgress }
  | { kind: "added"; model: InstalledModel };

export function HubAdd({ onAdded }: { onAdded: (m: InstalledModel) => void }) {
  const { t } = useTranslation();
  const [link, setLink] = useState("");
  const [step, setStep] = useState<Step>({ kind: "idle" });
  const [picked, setPicked] = useState<string | null>(null);
  const [error, setError] = useState<AppError | null>(null);

  const list = async (e: FormEvent) => {
    e.preventDefault();
    const pasted = link.trim();
    if (!pasted) return;
    setError(null);
    setPicked(null);
    setStep({ kind: "listing" });
    try {
      const files = await api.hubFiles(pasted);
      setStep({ kind: "listed", link: pasted, files });
      if (files.length === 1) setPicked(files[0].path);
    } catch (err) {
      setError(asAppError(err));
      setStep({ kind: "idle" });
    }
  };

  const download = async () => {
    if (step.kind !== "listed" || !picked) return;
    const { link: from, files } = step;
    const size = files.find((f) => f.path === picked)?.size ?? null;
    setError(null);
    setStep({ kind: "downloading", link: from, files, progress: { done: 0, total: size } });
    try {
      const model = await api.addFromHub(from, picked, (progress) =>
        setStep((s) => (s.kind === "downloading" ? { ...s, progress } : s)),
      );
      setStep({ kind: "added", model });
      setLink("");
      onAdded(model);
    } catch (err) {
      setError(asAppError(err));
      setStep({ kind: "listed", link: from, files });
    }
  };

  const busy = step.kind === "listing" || step.kind === "downloading";
  const files = step.kind === "listed" || step.kind === "downloading" ? step.files : null;
  return (
    <section className="hub-add" aria-label={t("hub.title")} data-testid="hub-add">
      <h2>{t("hub.title")}</h2>
      <form className="row" onSubmit={list}>
        <input
          type="text"
          className="hub-link"
          value={link}
          onChange={(e) => setLink(e.target.value)}
          placeholder={t("hub.placeholder")}
          aria-label={t("hub.linkLabel")}
          disabled={busy}
          data-testid="hub-link"
        />
        <button type="submit" disabled={busy || !link.trim()} data-testid="hub-list">
          {step.kind === "listing" ? t("hub.asking") : t("hub.list")}
        </button>
      </form>
      {error && (
        <p className="error-text" role="alert" data-testid="hub-error" data-code={error.code}>
          {sentenceOf(error)} <span className="error-message">{error.message}</span>
        </p>
      )}
      {files && (
        <fieldset className="hub-files" disabled={busy}>
          <legend className="muted small">{t("hub.files")}</legend>
          <ul data-testid="hub-files">
            {files.map((f) => (
              <li key={f.path}>
                <label data-testid="hub-file" data-path={f.path}>
                  <input
                    type="radio"
                    name="hub-file"
                    value={f.path}
                    checked={picked === f.path}
                    onChange={() => setPicked(f.path)}
                  />{" "}
                  {f.path} <span className="muted">— {humanSize(f.size)}</span>
                </label>
              </li>
            ))}
          </ul>
          {step.kind === "downloading" ? (
            <DownloadBar progress={step.progress} testId="hub-progress" />
          ) : (
            <button onClick={download} disabled={!picked} data-testid="hub-download">
              {picked ? t("hub.downloadFile", { file: picked }) : t("hub.downloadPicked")}
            </button>
          )}
        </fieldset>
      )}
      {step.kind === "added" && (
        <p className="ok-text small" data-testid="hub-added" data-name={step.model.name}>
          {t("hub.added", {
            name: step.model.name,
            size: humanSize(step.model.size),
            yourModels: t("model.yourModels"),
            writeWith: t("model.writeWith"),
          })}
        </p>
      )}
    </section>
  );
}
