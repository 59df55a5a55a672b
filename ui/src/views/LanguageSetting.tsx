// The language of the window (Settings): as the system, or one of the
// languages the window is written in, each named in itself. The choice is
// kept in this window's storage and applies at once (ui/src/i18n).

import { useTranslation } from "react-i18next";
import { AUTONYMS, LANGUAGES, systemLanguage, useLanguageChoice, type LanguageChoice } from "../i18n";

export function LanguageSetting() {
  const { t } = useTranslation();
  const [choice, choose] = useLanguageChoice();
  return (
    <article className="card settings-card" data-testid="language-card">
      <h2>{t("settings.language.title")}</h2>
      <label className="row">
        <span>{t("settings.language.label")}</span>{" "}
        <select
          value={choice}
          onChange={(e) => choose(e.target.value as LanguageChoice)}
          data-testid="language-choice"
        >
          <option value="system">{t("settings.language.system", { language: AUTONYMS[systemLanguage()] })}</option>
          {LANGUAGES.map((code) => (
            <option key={code} value={code} lang={code}>
              {AUTONYMS[code]}
            </option>
          ))}
        </select>
      </label>
      <p className="muted small">{t("settings.language.hint")}</p>
    </article>
  );
}
