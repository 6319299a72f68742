/** @jsxImportSource preact */
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, onSessionChange, refresh } from "./lib/api.ts";
import { Tick, useTicker } from "./lib/live.ts";
import { useRoute } from "./lib/router.ts";
import { CreateAgent, finishOAuthReturn, SignIn } from "./screens/sign-in.tsx";
import { Loading, Notice } from "./ui/kit.tsx";
import { Shell } from "./ui/shell.tsx";

interface Identity {
  agentId: string;
  handle: string;
  displayName: string;
}

type State = { kind: "starting" } | { kind: "signed-out"; error?: string } | { kind: "no-agent" } | { kind: "ready"; identity: Identity | null } | { kind: "broken"; error: string };

/** Start-up: finish an OAuth return if there is one, else resume the session from its cookie. */
function Console() {
  const [state, setState] = useState<State>({ kind: "starting" });
  const route = useRoute();
  const tick = useTicker();
  const enter = async () => {
    try {
      setState({ kind: "ready", identity: await api<Identity>("") });
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) setState({ kind: "no-agent" });
      else if (e instanceof ApiError && e.status === 401) setState({ kind: "signed-out" });
      else setState({ kind: "broken", error: e instanceof Error ? e.message : String(e) });
    }
  };
  // With a session, the shell (and so the first screen's requests) starts at once, beside the
  // identity request instead of after it: one round trip less before the inbox shows. A node with
  // no agent yet answers the identity 404 and the shell gives way to "create your agent".
  const resume = () => {
    setState({ kind: "ready", identity: null });
    return enter();
  };
  useEffect(() => {
    const off = onSessionChange((signedIn) => !signedIn && setState({ kind: "signed-out" }));
    (async () => {
      try {
        if (await finishOAuthReturn()) return void (await resume());
      } catch (e) {
        return setState({ kind: "signed-out", error: e instanceof Error ? e.message : String(e) });
      }
      if (await refresh()) await resume();
      else setState({ kind: "signed-out" });
    })();
    return off;
  }, []);
  switch (state.kind) {
    case "starting":
      return <div class="center"><Loading label="Opening your node" /></div>;
    case "signed-out":
      return <SignIn error={state.error} onSignedIn={enter} />;
    case "no-agent":
      return <CreateAgent onCreated={enter} />;
    case "broken":
      return <div class="center"><Notice tone="bad">The console could not reach the node: {state.error}</Notice></div>;
    case "ready":
      return (
        <Tick.Provider value={tick}>
          <Shell route={route} agentName={state.identity ? state.identity.displayName || state.identity.handle : ""} />
        </Tick.Provider>
      );
  }
}

// Preact renders after existing children (notes/EXTENSIONS.md §4.5): mount into an emptied node.
const root = document.getElementById("app")!;
root.textContent = "";
render(<Console />, root);
