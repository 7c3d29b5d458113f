import type { SqlWrite } from '@app/shared-kernel';
import { DocumentTemplate, PrintedDocumentType } from './document-template';

export interface Tenant {
  organizationId: string;
  workspaceId: string;
}

export abstract class TemplateRepository {
  /** An organization template of the workspace, not deleted, upgraded to the current schema. */
  abstract find(tenant: Tenant, id: string, lock?: 'share'): Promise<DocumentTemplate | undefined>;
  /** The id of the workspace's published e-mail template for a mail kind, if any. */
  abstract publishedFor(tenant: Tenant, anchorKey: string): Promise<string | undefined>;
  abstract insert(template: DocumentTemplate, ...alongside: SqlWrite[]): Promise<void>;
  /**
   * Version-checked write: `UPDATE … WHERE id AND version = expected`. False when another write
   * got there first (the caller answers 409 CONFLICT with the current version).
   */
  abstract saveIfVersion(template: DocumentTemplate, expectedVersion: number, ...alongside: SqlWrite[]): Promise<boolean>;
  abstract currentVersion(tenant: Tenant, id: string): Promise<number | undefined>;
  /** Which default slot a template holds. */
  abstract defaultsHeldBy(tenant: Tenant, id: string): Promise<PrintedDocumentType[]>;
  abstract holderOf(tenant: Tenant, type: PrintedDocumentType): Promise<string | undefined>;
  abstract setDefault(
    tenant: Tenant,
    type: PrintedDocumentType,
    templateId: string,
    now: Date,
    ...alongside: SqlWrite[]
  ): Promise<void>;
  /** Removes the slots when this template holds them; returns those it removed. */
  abstract releaseDefaults(
    tenant: Tenant,
    templateId: string,
    types: readonly PrintedDocumentType[],
  ): Promise<PrintedDocumentType[]>;
}
