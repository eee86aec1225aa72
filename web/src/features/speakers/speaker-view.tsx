// Which speakers the transcript shows, and their current names, shared by the panel and
// the segment list without threading props through the page.
import { createContext, useContext, useMemo, useState, type ReactNode } from "react";
import type { Speaker } from "../../lib/api/generated/zod.gen";

interface SpeakerView {
  speakers: Speaker[];
  nameOf: (id: string | undefined) => string | undefined;
  hidden: ReadonlySet<string>;
  toggle: (id: string) => void;
  showAll: () => void;
  isShown: (id: string | undefined) => boolean;
}

const Context = createContext<SpeakerView | undefined>(undefined);

export function SpeakerViewProvider({ speakers, children }: { speakers: Speaker[]; children: ReactNode }) {
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const value = useMemo<SpeakerView>(() => {
    const names = new Map(speakers.map((s) => [s.id, s.name]));
    const known = new Set(speakers.map((s) => s.id));
    // A filter for a speaker that is gone (speakers identified again) no longer hides anything.
    const live = new Set([...hidden].filter((id) => known.has(id)));
    return {
      speakers,
      nameOf: (id) => (id ? (names.get(id) ?? id) : undefined),
      hidden: live,
      toggle: (id) =>
        setHidden((current) => {
          const next = new Set(current);
          if (next.has(id)) next.delete(id);
          else next.add(id);
          return next;
        }),
      showAll: () => setHidden(new Set()),
      isShown: (id) => !id || !live.has(id),
    };
  }, [speakers, hidden]);
  return <Context.Provider value={value}>{children}</Context.Provider>;
}

/** Outside a provider (no speakers): everything shown, no names. */
export function useSpeakerView(): SpeakerView {
  return (
    useContext(Context) ?? {
      speakers: [],
      nameOf: () => undefined,
      hidden: new Set(),
      toggle: () => {},
      showAll: () => {},
      isShown: () => true,
    }
  );
}
