export { DUNBAR_LAYERS, HEALTH_BANDS, type DunbarLayer, type HealthBand } from "../../db/schema/connections.ts";
export { CADENCE_DAYS } from "./internal/score.ts";
