import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isCitusDatabase } from './citus-distribution';
import { checkTenantsByEquality } from './tenant-check';

/** At start: on a Citus coordinator, tenant checks become equalities the router planner can route (see sameTenant). */
@Injectable()
export class TenantRouting implements OnModuleInit {
  constructor(private readonly dataSource: DataSource) {}

  async onModuleInit(): Promise<void> {
    checkTenantsByEquality(await isCitusDatabase(this.dataSource));
  }
}
