// The speaker's name at the start of a turn in the segment list.
import { speakerColor } from "./colors";
import "./speakers.css";
import { useSpeakerView } from "./speaker-view";

export function SpeakerTag({ speaker }: { speaker: string }) {
  const { nameOf } = useSpeakerView();
  return (
    <span className="speaker-tag" data-speaker={speaker} style={{ color: speakerColor(speaker) }}>
      <span className="speaker-dot" aria-hidden="true" style={{ background: speakerColor(speaker) }} />
      {nameOf(speaker)}
    </span>
  );
}
