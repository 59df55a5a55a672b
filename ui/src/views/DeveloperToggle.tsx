// The developer tools switch: when on, the Inspector (plans, tool results,
// transcripts, the lore told to the storyteller) is one of the tabs.

import { useCallback, useState } from "react";
import { useTranslation } from "react-i18next";

const KEY = "narratoria.developerTools";

/** Whether developer tools are on (remembered in this window's storage), and a setter. */
export function useDeveloperTools(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(() => {
    try {
      return window.localStorage.getItem(KEY) === "1";
    } catch {
      return false;
    }
  });
  const set = useCallback((value: boolean) => {
    setOn(value);
    try {
      window.localStorage.setItem(KEY, value ? "1" : "0");
    } catch {
      // Storage may be unavailable; the choice then lasts until the window closes.
    }
  }, []);
  return [on, set];
}

export function DeveloperToggle({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  const { t } = useTranslation();
  return (
    <label className="developer-toggle" data-testid="developer-toggle">
      <input type="checkbox" checked={on} onChange={(e) => onChange(e.target.checked)} />
      {t("settings.developer")}
    </label>
  );
}
