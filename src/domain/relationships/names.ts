export { DUNBAR_LAYERS, HEALTH_BANDS, type DunbarLayer, type HealthBand } from "../../db/schema/connections.ts";
