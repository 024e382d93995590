// A labelled name input with its confirm button, inline in the page (a WebView's
// window.prompt is neither styled nor keyboard-friendly, and some WebViews drop it):
// Enter confirms, Escape cancels. Names are validated by Rust only; its message is shown
// by the input and announced, and the input is marked invalid until the name changes.
import { useEffect, useId, useRef, useState } from "react";
import { AppFailure, message } from "../api";

interface Props {
  label: string;
  initial?: string;
  confirmLabel: string;
  busyLabel: string;
  inputTestId: string;
  confirmTestId: string;
  /** Does the work; a thrown error's message is shown by the input. */
  onConfirm: (name: string) => Promise<void>;
  onCancel: () => void;
  /** Shows a Cancel button too (Escape cancels either way). */
  cancelLabel?: string;
  autoFocus?: boolean;
  /** Error codes that are not failures (the user closed the file dialog). */
  quietCodes?: string[];
}

export function NameForm({
  label,
  initial = "",
  confirmLabel,
  busyLabel,
  inputTestId,
  confirmTestId,
  onConfirm,
  onCancel,
  cancelLabel,
  autoFocus,
  quietCodes = [],
}: Props) {
  const [name, setName] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const id = useId();

  useEffect(() => {
    if (autoFocus) input.current?.select();
  }, [autoFocus]);

  function cancel() {
    setName(initial);
    setError(null);
    onCancel();
  }

  async function confirm() {
    if (busy || !name.trim()) return;
    setBusy(true);
    setError(null);
    try {
      await onConfirm(name);
    } catch (e) {
      if (!(e instanceof AppFailure && quietCodes.includes(e.code))) setError(message(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      className="name-form"
      onSubmit={(e) => {
        e.preventDefault();
        void confirm();
      }}
    >
      <label className="field" htmlFor={`${id}-name`}>
        {label}
      </label>
      <div className="row">
        <input
          ref={input}
          id={`${id}-name`}
          type="text"
          value={name}
          autoFocus={autoFocus}
          aria-invalid={error !== null}
          aria-describedby={error ? `${id}-error` : undefined}
          onChange={(e) => {
            setName(e.target.value);
            setError(null);
          }}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.preventDefault();
              cancel();
            }
          }}
          data-testid={inputTestId}
        />
        <button className="btn primary" type="submit" disabled={busy || !name.trim()} data-testid={confirmTestId}>
          {busy ? busyLabel : confirmLabel}
        </button>
        {cancelLabel && (
          <button className="btn" type="button" onClick={cancel}>
            {cancelLabel}
          </button>
        )}
      </div>
      {error && (
        <div className="field-error" id={`${id}-error`} role="alert">
          {error}
        </div>
      )}
    </form>
  );
}
