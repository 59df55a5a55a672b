// The window's language: one i18next instance with the catalogs bundled
// (ui/src/i18n/locales/*.json, nested by view), the language the player
// chose in Settings (kept in this window's storage) or else the system's
// (navigator.languages: WebKitGTK takes it from the process's locale),
// English for any other. Changing it applies at once, without a reload,
// and sets <html lang>. `node ui/scripts/check-i18n.mjs` keeps the
// catalogs in step with English and the keys the code uses.

import i18n from "i18next";
import { initReactI18next, useTranslation } from "react-i18next";
import { useCallback, useSyncExternalStore } from "react";
import en from "./locales/en.json";
import fr from "./locales/fr.json";
import es from "./locales/es.json";
import de from "./locales/de.json";

/** The languages the window is written in, English first. */
export const LANGUAGES = ["en", "fr", "es", "de"] as const;
export type Language = (typeof LANGUAGES)[number];

/** What the player chose: a language, or the system's. */
export type LanguageChoice = Language | "system";

/** Each language named in itself, as the Settings list shows it. */
export const AUTONYMS: Record<Language, string> = {
  en: "English",
  fr: "Français",
  es: "Español",
  de: "Deutsch",
};

/** Where the choice is kept (this window's storage, like the developer tools switch). */
export const LANGUAGE_KEY = "narratoria.language";

declare module "i18next" {
  interface CustomTypeOptions {
    defaultNS: "translation";
    resources: { translation: typeof en };
  }
}

function isLanguage(code: unknown): code is Language {
  return typeof code === "string" && (LANGUAGES as readonly string[]).includes(code);
}

/** The first of the system's languages the window is written in ("fr-CA" is French); English otherwise. */
export function systemLanguage(preferred: readonly string[] = systemPreferences()): Language {
  for (const tag of preferred) {
    const primary = tag.split(/[-_]/)[0]?.toLowerCase();
    if (isLanguage(primary)) return primary;
  }
  return "en";
}

function systemPreferences(): readonly string[] {
  if (typeof navigator === "undefined") return [];
  if (navigator.languages && navigator.languages.length > 0) return navigator.languages;
  return navigator.language ? [navigator.language] : [];
}

/** The choice kept in this window's storage; the system's language when none (or an unknown one) is. */
export function storedChoice(): LanguageChoice {
  try {
    const kept = window.localStorage.getItem(LANGUAGE_KEY);
    return isLanguage(kept) ? kept : "system";
  } catch {
    return "system";
  }
}

/** The language a choice shows the window in. */
export function languageOf(choice: LanguageChoice): Language {
  return choice === "system" ? systemLanguage() : choice;
}

function markDocument(language: string) {
  if (typeof document !== "undefined") document.documentElement.lang = language;
}

i18n.use(initReactI18next).init({
  resources: {
    en: { translation: en },
    fr: { translation: fr },
    es: { translation: es },
    de: { translation: de },
  },
  lng: languageOf(storedChoice()),
  fallbackLng: "en",
  supportedLngs: [...LANGUAGES],
  // Catalogs are bundled: ready before the first render.
  initAsync: false,
  // React escapes what it renders.
  interpolation: { escapeValue: false },
  returnNull: false,
});
markDocument(i18n.language);
i18n.on("languageChanged", markDocument);

/** The language the window is shown in now. */
export function currentLanguage(): Language {
  const now = i18n.resolvedLanguage ?? i18n.language;
  return isLanguage(now) ? now : "en";
}

// The choice as a small store, so that every view that shows it follows.
const listeners = new Set<() => void>();
let choice: LanguageChoice = storedChoice();

/** Keeps `next` (in this window's storage) and shows the window in it at once. */
export function chooseLanguage(next: LanguageChoice) {
  choice = next;
  try {
    if (next === "system") window.localStorage.removeItem(LANGUAGE_KEY);
    else window.localStorage.setItem(LANGUAGE_KEY, next);
  } catch {
    // Storage may be unavailable; the choice then lasts until the window closes.
  }
  void i18n.changeLanguage(languageOf(next));
  listeners.forEach((f) => f());
}

/** The player's choice of language, and a way to change it. */
export function useLanguageChoice(): [LanguageChoice, (next: LanguageChoice) => void] {
  const now = useSyncExternalStore(
    (f) => {
      listeners.add(f);
      return () => listeners.delete(f);
    },
    () => choice,
    () => choice,
  );
  // Re-render with the window's language too.
  useTranslation();
  const set = useCallback((next: LanguageChoice) => chooseLanguage(next), []);
  return [now, set];
}

export default i18n;
