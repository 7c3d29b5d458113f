import { AddPlanProductHandler } from './add-plan-product.handler';
import { AnnotatePlanVersionHandler } from './annotate-plan-version.handler';
import { CheckPlanPublishHandler } from './check-plan-publish.handler';
import { CopyPlanHandler } from './copy-plan.handler';
import { CreatePlanHandler } from './create-plan.handler';
import { DeletePlanHandler } from './delete-plan.handler';
import { DiscardPlanDraftHandler } from './discard-plan-draft.handler';
import { GetPlanDraftHandler } from './get-plan-draft.handler';
import { GetPlanPublishImpactHandler } from './get-plan-publish-impact.handler';
import { GetPlanVersionHandler } from './get-plan-version.handler';
import { GetPlanHandler } from './get-plan.handler';
import { GetSupersedeForecastHandler } from './get-supersede-forecast.handler';
import { GetVersionUsageHandler } from './get-version-usage.handler';
import { ListPlanVersionsHandler } from './list-plan-versions.handler';
import { ListPlansHandler } from './list-plans.handler';
import { ListVersionReferrersHandler } from './list-version-referrers.handler';
import { OpenPlanDraftHandler } from './open-plan-draft.handler';
import { RemovePlanProductHandler } from './remove-plan-product.handler';
import { RepublishPlansHandler } from './republish-plans.handler';
import { UpdatePlanProductHandler } from './update-plan-product.handler';
import { UpdatePlanHandler } from './update-plan.handler';

/** The handlers of the plans use cases (commands, then queries), registered by CatalogModule. */
export const PlanHandlers = [
  AddPlanProductHandler,
  AnnotatePlanVersionHandler,
  CopyPlanHandler,
  CreatePlanHandler,
  DeletePlanHandler,
  DiscardPlanDraftHandler,
  OpenPlanDraftHandler,
  RemovePlanProductHandler,
  RepublishPlansHandler,
  UpdatePlanHandler,
  UpdatePlanProductHandler,
  CheckPlanPublishHandler,
  GetPlanDraftHandler,
  GetPlanHandler,
  GetPlanPublishImpactHandler,
  GetPlanVersionHandler,
  GetSupersedeForecastHandler,
  GetVersionUsageHandler,
  ListPlanVersionsHandler,
  ListPlansHandler,
  ListVersionReferrersHandler,
];
