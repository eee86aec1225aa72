// The two forms a person fills in (POST /api/v1/support, signed in; POST /api/v1/contact, public).
import { type ContactRequest, type SupportRequest, zTicketResponse } from "./generated/zod.gen";
import { api } from "./index";

export function sendSupportMessage(request: SupportRequest) {
  return api.request({ method: "POST", path: "/support", body: request, schema: zTicketResponse });
}

export function sendContactMessage(request: ContactRequest) {
  return api.request({ method: "POST", path: "/contact", body: request, schema: zTicketResponse });
}
