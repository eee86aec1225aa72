export { speakerColor } from "./colors";
export { DiarizationFields, diarizationSettings, NO_DIARIZATION, type DiarizationChoice } from "./DiarizationFields";
export { SpeakerPanel } from "./SpeakerPanel";
export { SpeakerTag } from "./SpeakerTag";
export { SpeakerViewProvider, useSpeakerView } from "./speaker-view";
