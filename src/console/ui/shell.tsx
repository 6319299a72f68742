/** @jsxImportSource preact */
import { useContext, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, qs, signOut, type Page } from "../lib/api.ts";
import { Tick, useLoad } from "../lib/live.ts";
import { link, type Route } from "../lib/router.ts";
import { DEFAULT_SCREEN, GROUPS, SCREENS } from "../nav.ts";
import { Icon } from "./icons.tsx";
import { Empty, Toasts } from "./kit.tsx";

/** Counts for the menu, read on every tick: what is new, what waits for the owner. */
function useCounters() {
  const unread = useLoad(() => api<Page<unknown>>(`/inbox${qs({ status: "unread", limit: 100 })}`), "unread");
  const pending = useLoad(() => api<Page<unknown>>(`/pending${qs({ limit: 100 })}`), "pending");
  return { unread: unread.data?.items.length ?? 0, pending: pending.data?.items.length ?? 0 };
}

export function Shell({ route, agentName }: { route: Route; agentName: string }) {
  const counters = useCounters();
  const [menuOpen, setMenuOpen] = useState(false);
  const screen = SCREENS.find((s) => s.id === (route.screen || DEFAULT_SCREEN));
  const first = useRef(true);
  useContext(Tick);
  // A layout effect: it runs once the new screen is in the DOM, before the next key press can land elsewhere.
  useLayoutEffect(() => {
    setMenuOpen(false);
    document.title = `${screen?.label ?? "Not found"} · Kith`;
    // Move focus to the new screen's heading (not on first load), so keyboard and screen-reader users land
    // on it; a screen still loading has no heading yet, then the main region takes it.
    if (!first.current) ((document.querySelector("main h1") ?? document.getElementById("main")) as HTMLElement | null)?.focus();
    first.current = false;
  }, [route.screen, route.rest.join("/")]);
  const Screen = screen?.component;
  return (
    <div class="layout">
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById("main")?.focus(); }}>Skip to content</a>
      <header class="topbar">
        <a class="brand" href={link(DEFAULT_SCREEN)}><span class="brand-mark" aria-hidden="true">k</span> Kith</a>
        <span class="topbar-agent">{agentName}</span>
        <button type="button" class="menu-button" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          <Icon name={menuOpen ? "close" : "menu"} /> <span>Menu</span>
        </button>
      </header>
      <nav id="nav" class={menuOpen ? "sidebar open" : "sidebar"} aria-label="Console">
        {GROUPS.map((group) => (
          <div class="nav-group">
            <p class="nav-group-title" id={`nav-${group}`}>{group}</p>
            <ul aria-labelledby={`nav-${group}`}>
              {SCREENS.filter((s) => s.group === group).map((s) => {
                const count = s.badge ? counters[s.badge] : 0;
                return (
                  <li>
                    <a href={link(s.id)} aria-current={s === screen ? "page" : undefined}>
                      <Icon name={s.icon} />
                      <span class="nav-label">{s.label}</span>
                      {count > 0 && <span class="nav-count" aria-label={`${count}${count >= 100 ? "+" : ""} ${s.badge === "unread" ? "unread" : "waiting"}`}>{count >= 100 ? "99+" : count}</span>}
                    </a>
                  </li>
                );
              })}
            </ul>
          </div>
        ))}
        <button type="button" class="nav-signout" onClick={() => void signOut()}>
          <Icon name="out" /> <span>Sign out</span>
        </button>
      </nav>
      <main id="main" tabIndex={-1}>
        {Screen ? <Screen route={route} /> : <Empty title="No such page" action={<a href={link(DEFAULT_SCREEN)}>Go to the inbox</a>} />}
      </main>
      <Toasts screen={`${route.screen}/${route.rest.join("/")}`} />
    </div>
  );
}
