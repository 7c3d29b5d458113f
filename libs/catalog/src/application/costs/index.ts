import { CreateCostHandler } from './create-cost.handler';
import { EvaluateFormulaHandler } from './evaluate-formula.handler';
import { GetCostHandler } from './get-cost.handler';
import { ListCostConsumersHandler } from './list-cost-consumers.handler';
import { ListCostsHandler } from './list-costs.handler';
import { ListProductCostsHandler } from './list-product-costs.handler';
import { RemoveCostHandler } from './remove-cost.handler';
import { RestoreCostHandler } from './restore-cost.handler';
import { UpdateCostHandler } from './update-cost.handler';

/** The handlers of the costs use cases (commands, then queries), registered by CatalogModule. */
export const CostHandlers = [
  CreateCostHandler,
  RemoveCostHandler,
  RestoreCostHandler,
  UpdateCostHandler,
  EvaluateFormulaHandler,
  GetCostHandler,
  ListCostConsumersHandler,
  ListCostsHandler,
  ListProductCostsHandler,
];
