// The two forms a person fills in (POST /api/v1/support, signed in; POST /api/v1/contact, public).
import { z } from "zod";
import { api } from "./index";

const ticketSchema = z.object({ ticketId: z.string() });

export function sendSupportMessage(request: { subject: string; message: string; transcriptionId?: string | undefined }) {
  return api.request({ method: "POST", path: "/support", body: request, schema: ticketSchema });
}

export function sendContactMessage(request: { name: string; email: string; message: string }) {
  return api.request({ method: "POST", path: "/contact", body: request, schema: ticketSchema });
}
