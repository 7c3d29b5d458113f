import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { DataSource } from 'typeorm';
import { TestApp } from './test-app';

/**
 * A pending verification of `customerId` in a live workspace, stored as a real provider's check
 * would open it. No route opens one outside the sandbox (the test helper is sandbox-only), so
 * suites that walk live routes seed it here. Returns its id.
 */
export async function seedVerification(
  t: TestApp,
  tenant: { organization_id: string },
  workspaceId: string,
  customerId: string,
  verificationType = 'kyc',
): Promise<string> {
  const id = uuidv7();
  await t.app.get(DataSource).query(
    `INSERT INTO customer_verifications (organization_id, workspace_id, id, customer_id, verification_type, status, provider,
       provider_reference, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, 'pending', 'seeded', $6, now(), now())`,
    [tenant.organization_id, workspaceId, id, customerId, verificationType, `ref_${randomBytes(12).toString('hex')}`],
  );
  return id;
}
