import type { Inspection } from '../model.js';
import { oneLine } from '../one-line.js';

/**
 * The plan's warnings section: what the migration leaves as it is and may break once keys are
 * sheaf ids, one sentence each; empty when there is none.
 */
export function warningsText(inspection: Pick<Inspection, 'warnings'>): string {
  const warnings = inspection.warnings ?? [];
  if (warnings.length === 0) return '';
  // Messages quote routine signatures as the server prints them, which may hold any character.
  const items = warnings.map((warning) => `  ${oneLine(warning.message)}`);
  return `warnings (${warnings.length}), not changed by the migration:\n${items.join('\n')}`;
}
