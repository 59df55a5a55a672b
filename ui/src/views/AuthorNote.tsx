// The story's author's note and language (docs/stories.md, "Author's note"
// and "Language"): a folded panel above the story. The note is the
// player's steer for the narrator — tone, focus, what to avoid — saved with
// the story and followed from the next turn; the language is the one the
// story is told in, chosen from a short list or given as any ISO 639 code.
// A refusal (a note too long, a code that is no language) is shown in the
// panel and the value saved before stays.

import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asAppError, type AppError, type StoryLanguage } from "../api";
import { sentenceOf } from "../errors";
import { NOTE_CHARS } from "../bounds";
import { formatList, formatNumber, languageName } from "../i18n/format";

/** The languages offered by name; any other is given by its code. */
export const LANGUAGES: { code: string; name: string }[] = [
  { code: "en", name: "English" },
  { code: "fr", name: "Français" },
  { code: "de", name: "Deutsch" },
  { code: "es", name: "Español" },
  { code: "it", name: "Italiano" },
  { code: "pt", name: "Português" },
  { code: "nl", name: "Nederlands" },
  { code: "pl", name: "Polski" },
  { code: "ru", name: "Русский" },
  { code: "ja", name: "日本語" },
  { code: "zh", name: "中文" },
];

const OTHER = "other";

interface Props {
  /** The story's id; null before one is open. */
  session: string | null;
  /** While a turn runs, nothing is changed. */
  busy: boolean;
}

export function AuthorNote({ session, busy }: Props) {
  const { t } = useTranslation();
  const [saved, setSaved] = useState("");
  const [text, setText] = useState("");
  const [language, setLanguage] = useState<StoryLanguage | null>(null);
  const [choice, setChoice] = useState("");
  const [code, setCode] = useState("");
  const [error, setError] = useState<AppError | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const showLanguage = (lang: StoryLanguage) => {
    setLanguage(lang);
    const offered = LANGUAGES.some((l) => l.code === lang.code);
    setChoice(lang.code === null ? "" : offered ? lang.code : OTHER);
    setCode(lang.code !== null && !offered ? lang.code : "");
  };

  useEffect(() => {
    setError(null);
    setDone(null);
    if (!session) return;
    return unlessStale(
      Promise.all([api.storyNote(session), api.storyLanguage(session)]),
      ([note, lang]) => {
        setSaved(note);
        setText(note);
        showLanguage(lang);
      },
      (e) => setError(asAppError(e)),
    );
  }, [session]);

  // A story whose language is not known yet takes the one the player's
  // first words are written in: ask again once a turn is over.
  const unknownLanguage = language !== null && language.code === null;
  useEffect(() => {
    if (!session || busy || !unknownLanguage) return;
    return unlessStale(api.storyLanguage(session), (lang) => lang.code !== null && showLanguage(lang));
  }, [session, busy, unknownLanguage]);

  const saveNote = async () => {
    if (!session) return;
    setError(null);
    setDone(null);
    try {
      const kept = await api.setStoryNote(session, text);
      setSaved(kept);
      setText(kept);
      setDone(kept ? t("note.saved") : t("note.cleared"));
    } catch (e) {
      setError(asAppError(e));
    }
  };

  const saveLanguage = async (wanted: string) => {
    if (!session || !wanted.trim()) return;
    setError(null);
    setDone(null);
    try {
      const lang = await api.setStoryLanguage(session, wanted.trim());
      showLanguage(lang);
      setDone(t("note.languageSet", { language: lang.code ? languageName(lang.code, lang.name) : lang.name }));
    } catch (e) {
      setError(asAppError(e));
    }
  };

  if (!session) return null;
  const chars = [...text].length;
  const changed = text.trim() !== saved;
  const summary = language
    ? language.code === null
      ? t("note.languageFromFirstWords")
      : t("note.languageBadge", { autonym: language.autonym, code: language.code })
    : "";
  const unwritten = language?.code ? language.writerWarning : null;
  const storyLanguage = language?.code ? languageName(language.code, language.name) : "";
  return (
    <>
      {unwritten && (
        <p className="small warning-text" role="status" data-testid="writer-language-warning">
          {t("note.writerWarning", {
            writer: unwritten.writer,
            writes: formatList(unwritten.writes.map((c) => languageName(c))),
            language: storyLanguage,
          })}{" "}
          {unwritten.models.length > 0 &&
            t("note.writerWarningModels", { language: storyLanguage, models: formatList(unwritten.models) })}
        </p>
      )}
      <details className="author-note" data-testid="author-note">
        <summary>
          {t("note.title")}
          <span className="muted"> — {saved ? firstWords(saved) : t("note.none")}</span>
          {summary && (
            <span className="badge" data-testid="story-language">
              {summary}
            </span>
          )}
        </summary>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            saveNote();
          }}
        >
          <label htmlFor="author-note-text" className="field-label">
            {t("note.steer")}
          </label>
          <textarea
            id="author-note-text"
            value={text}
            rows={3}
            disabled={busy}
            placeholder={t("note.placeholder")}
            onChange={(e) => setText(e.target.value)}
            aria-describedby="author-note-count"
            data-testid="author-note-text"
          />
          <div className="row">
            <button type="submit" disabled={busy || !changed} data-testid="author-note-save">
              {t("common.save")}
            </button>
            {saved && (
              <button
                type="button"
                className="link"
                disabled={busy}
                onClick={() => setText("")}
                data-testid="author-note-clear"
              >
                {t("note.clear")}
              </button>
            )}
            <span
              id="author-note-count"
              className={chars > NOTE_CHARS ? "small error-text" : "small muted"}
              data-testid="author-note-count"
            >
              {t("note.count", { chars: formatNumber(chars), max: formatNumber(NOTE_CHARS) })}
            </span>
          </div>
        </form>
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            saveLanguage(choice === OTHER ? code : choice);
          }}
        >
          <label htmlFor="story-language-choice">{t("note.language")}</label>
          <select
            id="story-language-choice"
            value={choice}
            disabled={busy}
            onChange={(e) => {
              setChoice(e.target.value);
              if (e.target.value && e.target.value !== OTHER) saveLanguage(e.target.value);
            }}
            data-testid="story-language-choice"
          >
            {choice === "" && <option value="">{t("note.fromFirstWords")}</option>}
            {LANGUAGES.map((l) => (
              <option key={l.code} value={l.code} lang={l.code}>
                {l.name}
              </option>
            ))}
            <option value={OTHER}>{t("note.other")}</option>
          </select>
          {choice === OTHER && (
            <>
              <input
                aria-label={t("note.codeLabel")}
                value={code}
                size={10}
                disabled={busy}
                placeholder={t("note.codePlaceholder")}
                onChange={(e) => setCode(e.target.value)}
                data-testid="story-language-code"
              />
              <button type="submit" disabled={busy || !code.trim()} data-testid="story-language-save">
                {t("note.set")}
              </button>
            </>
          )}
        </form>
        <p className="small" aria-live="polite">
          {error ? (
            <span className="error-text" role="alert" data-testid="author-note-error" data-code={error.code}>
              {sentenceOf(error)} <span className="error-message">{error.message}</span>
            </span>
          ) : (
            done && (
              <span className="ok-text" data-testid="author-note-done">
                {done}
              </span>
            )
          )}
        </p>
      </details>
    </>
  );
}

/** The start of a note, for the folded panel. */
function firstWords(note: string): string {
  const line = note.split("\n")[0];
  return line.length > 60 ? `${line.slice(0, 60)}…` : line;
}

/**
 * Runs `then` with what `promise` gives, or `failed` with why it failed,
 * unless the effect was cleaned up first (another story opened); returns
 * that cleanup.
 */
function unlessStale<T>(promise: Promise<T>, then: (value: T) => void, failed: (e: unknown) => void = () => {}): () => void {
  let current = true;
  promise.then(
    (value) => current && then(value),
    (e) => current && failed(e),
  );
  return () => {
    current = false;
  };
}
