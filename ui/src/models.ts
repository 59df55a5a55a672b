// The words the window uses for models and this machine: sizes, parameter
// counts, what this machine has, how a model would run here, the languages
// a model writes (docs/models.md, "What this machine can run").

import type { Fit, Machine, Offer, Verdict } from "./api";

/** "97.8 MB", as a file manager says it. */
export function humanSize(bytes: number): string {
  const units = ["B", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** "135M", "1.5B": parameters as model names say them. */
export function humanCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${Math.round(n / 1e6)}M`;
  if (n >= 1e3) return `${Math.round(n / 1e3)}K`;
  return `${n}`;
}

/** "runs well", "runs slowly", "does not fit". */
export const VERDICT_WORDS: Record<Verdict, string> = {
  runsWell: "runs well",
  runsSlowly: "runs slowly",
  doesNotFit: "does not fit",
};

/** "2 cores", "1 core". */
function cores(n: number): string {
  return `${n} ${n === 1 ? "core" : "cores"}`;
}

/** What the graphics card part of the machine line says. */
export function gpuWords(machine: Machine): string {
  const gpu = machine.gpu;
  if (!gpu) return "no graphics card in use";
  if (gpu.software) return `${gpu.name}: a software driver that runs on the processor, so no graphics card is used`;
  return `graphics card ${gpu.name} with ${humanSize(gpu.memoryFree)} free of ${humanSize(gpu.memoryTotal)}`;
}

/**
 * This machine in one line, as `narratoria models list` says it: "2 cores
 * (avx, avx2, fma, f16c), 24.7 GB of memory free of 25.3 GB, no graphics card in use".
 */
export function machineWords(machine: Machine): string {
  const processor = `${cores(machine.cores)}${machine.cpuFeatures.length ? ` (${machine.cpuFeatures.join(", ")})` : " (no vector extensions llama.cpp uses)"}`;
  const memory =
    machine.memoryAvailable != null && machine.memoryTotal != null
      ? `${humanSize(machine.memoryAvailable)} of memory free of ${humanSize(machine.memoryTotal)}`
      : machine.memoryTotal != null
        ? `${humanSize(machine.memoryTotal)} of memory`
        : "memory unknown";
  return `${processor}, ${memory}, ${gpuWords(machine)}`;
}

/** "about 15 tokens/s" or "measured 36 tokens/s". */
export function speedWords(fit: Fit): string {
  const rate = fit.tokensPerSecond >= 10 ? Math.round(fit.tokensPerSecond) : Math.round(fit.tokensPerSecond * 10) / 10;
  return `${fit.measured ? "measured" : "about"} ${rate} tokens/s`;
}

const LANGUAGE_NAMES = (() => {
  try {
    return new Intl.DisplayNames(["en"], { type: "language" });
  } catch {
    return null;
  }
})();

/** "English, Chinese, French and 26 more": a model's languages, most fluent first. */
export function languagesWords(codes: string[] | undefined, shown = 5): string | null {
  if (!codes || codes.length === 0) return null;
  const name = (code: string) => {
    try {
      return LANGUAGE_NAMES?.of(code) ?? code;
    } catch {
      return code;
    }
  };
  const names = codes.slice(0, shown).map(name);
  const more = codes.length - names.length;
  return more > 0 ? `${names.join(", ")} and ${more} more` : names.join(", ");
}

/** The offer's account of what writing with `offer` changes here, sentence by sentence. */
export function offerChanges(offer: Offer, bundledParameters: number | null): string[] {
  const richer =
    offer.parameters && bundledParameters
      ? `Richer prose than the bundled model: ${humanCount(offer.parameters)} parameters against its ${humanCount(bundledParameters)}.`
      : "Richer prose than the bundled model.";
  const needs = [
    offer.size ? `a ${humanSize(offer.size)} download` : "a download",
    offer.ram ? `needs about ${humanSize(offer.ram)} of memory` : null,
    offer.fit ? `${speedWords(offer.fit)} here` : null,
  ].filter(Boolean);
  const sentence = needs.join(", ");
  return [
    richer,
    `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`,
    "The bundled model keeps playing meanwhile, and still plans each turn's mechanics afterwards.",
  ];
}
