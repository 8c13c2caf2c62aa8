/**
 * Leak tests look for a secret's digits (a max buy rate of 2650, say) in what was sent out.
 * Generated identifiers (UUIDs, hex load numbers and names) can hold any digit run, so the
 * text is searched with them masked.
 */
export const withoutGeneratedIds = (text: string) =>
  text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    .replace(/\b[0-9a-f]{8,12}\b/gi, '<hex>');
