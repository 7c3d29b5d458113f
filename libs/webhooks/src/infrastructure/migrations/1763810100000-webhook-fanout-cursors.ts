import { MigrationInterface, QueryRunner } from 'typeorm';
import { distributeTenantTable } from '@app/shared-kernel';

/**
 * Webhook deliveries are written by a fan-out from the committed events instead of in the
 * statement that writes each event: `webhook_fanout_cursors` holds, per workspace, the last event
 * sequence fanned out. Workspaces with endpoints start at their current sequence (their events so
 * far have their deliveries already); others get a cursor with their first endpoint.
 */
export class WebhookFanoutCursors1763810100000 implements MigrationInterface {
  name = 'WebhookFanoutCursors1763810100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_fanout_cursors (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        last_sequence bigint NOT NULL CHECK (last_sequence >= 0),
        PRIMARY KEY (organization_id, workspace_id)
      )`);
    await distributeTenantTable(q, 'webhook_fanout_cursors');
    await q.query(`
      INSERT INTO webhook_fanout_cursors (organization_id, workspace_id, last_sequence)
      SELECT s.organization_id, s.workspace_id, s.last_sequence FROM event_sequences s
       WHERE EXISTS (SELECT 1 FROM webhook_endpoints w
                      WHERE w.organization_id = s.organization_id AND w.workspace_id = s.workspace_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_fanout_cursors');
  }
}
