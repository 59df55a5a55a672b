// A button that asks once more before doing something that cannot be
// undone: the first press shows "Confirm" and "Cancel" in its place.

import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";

interface Props {
  /** The button's words. */
  label: string;
  /** What the button does, read out (also names the confirm button). */
  ariaLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
  testId: string;
}

export function ConfirmButton({ label, ariaLabel, onConfirm, disabled, testId }: Props) {
  const { t } = useTranslation();
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" className="link" onClick={() => setAsking(true)} disabled={disabled} aria-label={ariaLabel} data-testid={testId}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={ariaLabel}>
      <button
        ref={confirmRef}
        type="button"
        className="danger"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
        disabled={disabled}
        aria-label={t("common.confirmLabel", { action: ariaLabel })}
        data-testid={`${testId}-confirm`}
      >
        {t("common.confirm")}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        {t("common.cancel")}
      </button>
    </span>
  );
}
