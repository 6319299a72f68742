import type { AgentCard, SenderKeys } from "../../../ink/index.ts";
import type { PeerCardUpdate } from "../peer-cards.ts";
import type { PeerRefusal, PeerRequests, PeerScheme } from "../peer-requests.ts";

/**
 * What each request kind's authentication (authenticate-*.ts here) hands back to
 * authenticate-peer.ts: the verified sender, or the refusal and what was learned on the way
 * (kept either way: it stays true, and spares the next request a fetch).
 */
export type Authenticated<S extends PeerScheme> =
  | {
      ok: true;
      principal: string;
      agentId: string;
      keys: SenderKeys;
      card: AgentCard | null;
      nonce: string;
      request: PeerRequests[S];
      learned: PeerCardUpdate | null;
    }
  | (PeerRefusal & { learned?: PeerCardUpdate | null });
