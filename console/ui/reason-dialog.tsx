import { useState } from 'react';
import type { Reason } from '../api/carriers';
import { errorFor } from '../api/errors';
import { ConfirmDialog } from './confirm-dialog';
import { Field, Select } from './field';
import { Problem } from './problem';

/** The reason codes of the audit log, as the contract names them. */
export const REASONS = [
  { value: 'service_quality', label: 'Service quality' },
  { value: 'rate_disagreement', label: 'Rate disagreement' },
  { value: 'compliance', label: 'Compliance' },
  { value: 'fraud_safety', label: 'Fraud or safety' },
  { value: 'carrier_pause', label: 'The carrier asked for a pause' },
  { value: 'pause_on_lane', label: 'Pause on the lane' },
  { value: 'no_longer_active', label: 'No longer active' },
  { value: 'other', label: 'Other (say why in the note)' },
] as const satisfies readonly { value: Reason; label: string }[];
const allReasons: Exclude<Reason, (typeof REASONS)[number]['value']> extends never ? true : never = true;
void allReasons;

interface ReasonDialogProps {
  title: string;
  confirmLabel: string;
  /** What the action does, in a sentence. */
  children: React.ReactNode;
  busy: boolean;
  error: unknown;
  onConfirm(reason: { reason: Reason; reason_note: string }): void;
  onCancel(): void;
}

/**
 * An audited action's confirmation: a reason code and a note. The API decides what a note must be
 * (`other` requires one): its refusal is shown on the field it names, and what was chosen stays.
 */
export function ReasonDialog({
  title,
  confirmLabel,
  children,
  busy,
  error,
  onConfirm,
  onCancel,
}: ReasonDialogProps) {
  const [reason, setReason] = useState<Reason>('service_quality');
  const [note, setNote] = useState('');
  const fieldError = errorFor(error, 'reason_note') ?? errorFor(error, 'reason');
  return (
    <ConfirmDialog
      title={title}
      confirmLabel={confirmLabel}
      busy={busy}
      onCancel={onCancel}
      onConfirm={() => onConfirm({ reason, reason_note: note.trim() })}
    >
      {children}
      <Select
        label="Reason"
        value={reason}
        onChange={(e) => setReason(REASONS.find((r) => r.value === e.target.value)?.value ?? 'other')}
        options={REASONS}
      />
      <Field
        label="Note"
        value={note}
        onChange={(e) => setNote(e.target.value)}
        error={errorFor(error, 'reason_note')}
        hint="Required when the reason is Other"
      />
      {error && !fieldError ? <Problem error={error} /> : null}
    </ConfirmDialog>
  );
}
