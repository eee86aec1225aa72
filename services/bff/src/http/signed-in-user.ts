import { AppError } from "@transcribe/platform";
import type { FastifyRequest } from "fastify";

/** The id of the user the session preHandler put on the request; every user-scoped route calls this. */
export function signedInUserId(request: FastifyRequest): string {
  const id = request.user?.id;
  if (!id) throw new AppError("unauthenticated", "Not signed in");
  return id;
}
