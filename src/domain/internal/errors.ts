import { DomainError } from "../errors.ts";

export const notFound = (what: string) => new DomainError("not_found", `${what} not found`);

/** The one 404 of a node that has no agent yet (started empty, before POST /api/svc). */
export const noAgentYet = () => new DomainError("not_found", "this node has no agent yet: POST /api/svc creates it");

export const invalidInput = (message: string) => new DomainError("invalid_input", message);

export const conflict = (message: string) => new DomainError("conflict", message);
