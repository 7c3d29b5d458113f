import { ChangeRepository, TenantKey } from '../domain/repositories';
import { VersionRecord } from '../domain/version-line';

/** Releases taken out of a queue (an archive, a delete): their pending changes are canceled with them. */
export async function cancelChangesOf(
  changes: ChangeRepository,
  tenant: TenantKey,
  releases: VersionRecord[],
  now: Date,
): Promise<void> {
  for (const change of await changes.lockMany(
    tenant,
    releases.map((row) => row.changeId!),
  )) {
    change.cancel(now);
    await changes.save(change);
  }
}
