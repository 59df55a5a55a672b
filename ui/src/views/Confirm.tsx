// A button that asks once more before doing something that cannot be
// undone: the first press shows "Confirm" and "Cancel" in its place.

import { useEffect, useRef, useState } from "react";

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
        aria-label={`Confirm: ${ariaLabel}`}
        data-testid={`${testId}-confirm`}
      >
        Confirm
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
