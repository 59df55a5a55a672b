// Renaming in place: the name becomes a small form (Enter saves, Escape
// cancels) and focus comes back to the button that opened it.

import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";

interface Props {
  current: string;
  /** What is renamed, read out ("the story X", "branch Y"). */
  what: string;
  onRename: (to: string) => void;
  disabled?: boolean;
  testId: string;
}

export function RenameButton({ current, what, onRename, disabled, testId }: Props) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(current);
  const fieldRef = useRef<HTMLInputElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  useEffect(() => {
    if (editing) fieldRef.current?.select();
    else if (wasEditing.current) buttonRef.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  if (!editing) {
    return (
      <button
        ref={buttonRef}
        type="button"
        className="link"
        onClick={() => {
          setText(current);
          setEditing(true);
        }}
        disabled={disabled}
        aria-label={t("common.renameLabel", { what })}
        data-testid={testId}
      >
        {t("common.rename")}
      </button>
    );
  }
  return (
    <form
      className="rename"
      onSubmit={(e) => {
        e.preventDefault();
        const to = text.trim();
        if (to && to !== current) onRename(to);
        setEditing(false);
      }}
    >
      <input
        ref={fieldRef}
        aria-label={t("common.newNameLabel", { what })}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            setEditing(false);
          }
        }}
        data-testid={`${testId}-input`}
      />
      <button type="submit" disabled={disabled || !text.trim()} data-testid={`${testId}-save`}>
        {t("common.save")}
      </button>
      <button type="button" onClick={() => setEditing(false)}>
        {t("common.cancel")}
      </button>
    </form>
  );
}
