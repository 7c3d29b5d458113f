import { CreateProductHandler } from './create-product.handler';
import { DiscardProductDraftHandler } from './discard-product-draft.handler';
import { GetProductDraftHandler } from './get-product-draft.handler';
import { GetProductVersionHandler } from './get-product-version.handler';
import { GetProductHandler } from './get-product.handler';
import { ListProductVersionsHandler } from './list-product-versions.handler';
import { ListProductsHandler } from './list-products.handler';
import { OpenProductDraftHandler } from './open-product-draft.handler';
import { UpdateProductHandler } from './update-product.handler';

/** The handlers of the products use cases (commands, then queries), registered by CatalogModule. */
export const ProductHandlers = [
  CreateProductHandler,
  DiscardProductDraftHandler,
  OpenProductDraftHandler,
  UpdateProductHandler,
  GetProductDraftHandler,
  GetProductHandler,
  GetProductVersionHandler,
  ListProductVersionsHandler,
  ListProductsHandler,
];
