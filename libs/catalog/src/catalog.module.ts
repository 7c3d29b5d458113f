import { Module } from '@nestjs/common';

/** Costs, products, plans and their versions, changes, subscriptions. */
@Module({})
export class CatalogModule {}
