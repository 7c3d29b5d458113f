import { PrintedDocumentType, TemplateState } from '../../domain/document-template';

/** A template as the API shows it: its state and the default slots of its workspace it holds. */
export interface TemplateView {
  template: TemplateState;
  defaultFor: PrintedDocumentType[];
}
