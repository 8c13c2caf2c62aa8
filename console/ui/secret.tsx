import { useState } from 'react';

/**
 * A secret the API shows once (an API key, a webhook signing secret): shown here with a button that
 * copies it, and the warning that it cannot be read again.
 */
export function OnceSecret({ label, value, onDone }: { label: string; value: string; onDone(): void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = () =>
    navigator.clipboard
      .writeText(value)
      .then(() => setCopied('yes'))
      .catch(() => setCopied('failed'));
  return (
    <section className="secret" aria-label={label}>
      <p>
        <strong>{label}</strong>: copy it now; it is not shown again.
      </p>
      <code className="secret-value">{value}</code>
      <div className="actions">
        <button type="button" onClick={() => void copy()}>
          Copy {label.toLowerCase()}
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
        <span aria-live="polite">
          {copied === 'yes'
            ? 'Copied.'
            : copied === 'failed'
              ? 'Not copied: select the text and copy it.'
              : ''}
        </span>
      </div>
    </section>
  );
}
