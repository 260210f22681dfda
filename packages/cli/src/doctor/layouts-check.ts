import type { InstalledState } from '../installed-state.js';
import { type Check, check } from './check.js';
import type { Member } from './fleet.js';
import { listed } from './format.js';

type Layout = InstalledState['layout'];

interface LayoutGroup {
  readonly layout: Layout;
  readonly databases: string[];
}

/**
 * The layouts of the databases against each other. Ids of one table, made by several databases,
 * are compared and decoded with one layout: any difference in epoch or field widths fails. The
 * name is only a label: equal numbers under two names make the same ids.
 */
export function layoutsCheck(members: readonly Member[]): Check {
  const groups: LayoutGroup[] = [];
  for (const { state, label } of members) {
    const group = groups.find((g) => key(g.layout) === key(state.layout));
    if (group) group.databases.push(label);
    else groups.push({ layout: state.layout, databases: [label] });
  }
  const details = {
    layouts: groups.map(({ layout, databases }) => ({ ...layout, epoch: iso(layout.epoch), databases })),
  };
  // The caller compares two databases or more: there is a first group.
  const [first, ...others] = groups as [LayoutGroup, ...LayoutGroup[]];
  if (others.length === 0) {
    const all = members.length === 2 ? 'both databases' : `all ${members.length} databases`;
    return check('layouts', 'ok', `${describe(first.layout)} on ${all}`, { details });
  }
  const but = others.map((group) => `${describe(group.layout)} on ${listed(group.databases)}`);
  return check(
    'layouts',
    'fail',
    `layout ${describe(first.layout)} on ${listed(first.databases)} but ${listed(but)}: ids of one table must share a layout`,
    { code: 'SERVER_CONFIG', details },
  );
}

/** "sheaf (epoch 2024-01-01T00:00:00.000Z, 41/12/10)": time/shard/sequence bits. */
function describe(layout: Layout): string {
  return `${layout.name} (epoch ${iso(layout.epoch)}, ${layout.timeBits}/${layout.shardBits}/${layout.sequenceBits})`;
}

function key(layout: Layout): string {
  return [layout.epoch, layout.timeBits, layout.shardBits, layout.sequenceBits].join('/');
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
