// The words the window uses for models and this machine: sizes, parameter
// counts, what this machine has, how a model would run here, the languages
// a model writes (docs/models.md, "What this machine can run"), in the
// window's language.

import type { Fit, Machine, Offer, Verdict } from "./api";
import i18n from "./i18n";
import { formatCount, formatNumber, formatPercent, formatSize, languageName } from "./i18n/format";

/** "97.8 MB", as a file manager says it. */
export function humanSize(bytes: number): string {
  return formatSize(bytes);
}

/** "135M", "1.5B": parameters as model names say them. */
export function humanCount(n: number): string {
  return formatCount(n);
}

/** "runs well", "runs slowly", "does not fit". */
export function verdictWords(verdict: Verdict): string {
  return i18n.t(`models.verdict.${verdict}`);
}

/** What the graphics card part of the machine line says. */
export function gpuWords(machine: Machine): string {
  const gpu = machine.gpu;
  if (!gpu) return i18n.t("models.noGpu");
  if (gpu.software) return i18n.t("models.softwareGpu", { name: gpu.name });
  return i18n.t("models.gpu", { name: gpu.name, free: humanSize(gpu.memoryFree), total: humanSize(gpu.memoryTotal) });
}

/**
 * This machine in one line, as `narratoria models list` says it: "2 cores
 * (avx, avx2, fma, f16c), 24.7 GB of memory free of 25.3 GB, no graphics card in use".
 */
export function machineWords(machine: Machine): string {
  const cores = i18n.t("models.cores", { count: machine.cores });
  const processor = machine.cpuFeatures.length
    ? i18n.t("models.cpuFeatures", { cores, features: machine.cpuFeatures.join(", ") })
    : i18n.t("models.noCpuFeatures", { cores });
  const memory =
    machine.memoryAvailable != null && machine.memoryTotal != null
      ? i18n.t("models.memoryFree", { free: humanSize(machine.memoryAvailable), total: humanSize(machine.memoryTotal) })
      : machine.memoryTotal != null
        ? i18n.t("models.memoryTotal", { total: humanSize(machine.memoryTotal) })
        : i18n.t("models.memoryUnknown");
  return [processor, memory, gpuWords(machine)].join(", ");
}

/** "about 15 tokens/s" or "measured 36 tokens/s". */
export function speedWords(fit: Fit): string {
  const rate = fit.tokensPerSecond >= 10 ? Math.round(fit.tokensPerSecond) : Math.round(fit.tokensPerSecond * 10) / 10;
  return i18n.t(fit.measured ? "models.speedMeasured" : "models.speedAbout", { rate: formatNumber(rate) });
}

/**
 * Where a model runs, from the words the backend sends (`ModelInfo`'s
 * `plannerRunsOn`/`writerRunsOn`: "on the processor", "on CARD (N of M
 * layers)", "on Ollama at HOST", "on the server at HOST"), in the window's
 * language; words of another shape are shown as they came.
 */
export function whereWords(where: string | null | undefined): string | null {
  if (!where) return null;
  if (where === "on the processor") return i18n.t("models.where.processor");
  const layers = /^on (.+) \((\d+) of (\d+) layers\)$/.exec(where);
  if (layers) {
    return i18n.t("models.where.gpuLayers", {
      device: layers[1],
      layers: formatNumber(Number(layers[2])),
      total: formatNumber(Number(layers[3])),
    });
  }
  const server = /^on the server at (\S+)$/.exec(where);
  if (server) return i18n.t("models.where.server", { host: server[1] });
  const named = /^on (.+) at (\S+)$/.exec(where);
  if (named) return i18n.t("models.where.namedServer", { server: named[1], host: named[2] });
  return where;
}

/**
 * Why a model fares as it does here, in a phrase: its speed and where it
 * would run, from the fit's own numbers (as crates/models/src/fit.rs words
 * it); "needs 5.8 GB of memory, 3.0 GB is free" when it does not fit (the
 * sizes read from the backend's reason, which is shown as it came when
 * they cannot be).
 */
export function fitReason(fit: Fit): string {
  if (fit.verdict === "doesNotFit") {
    const memory = /^needs (.+) of memory, (.+) is free$/.exec(fit.reason);
    return memory ? i18n.t("models.fit.memory", { needs: gigabytes(memory[1]), free: gigabytes(memory[2]) }) : fit.reason;
  }
  const where =
    fit.onGpu >= 1
      ? i18n.t("models.where.gpuCard")
      : fit.onGpu > 0
        ? i18n.t("models.where.gpuShare", { percent: formatPercent(fit.onGpu) })
        : i18n.t("models.where.processor");
  const speed = i18n.t(fit.measured ? "models.speedMeasured" : "models.speedAbout", {
    rate: formatNumber(Math.round(fit.tokensPerSecond)),
  });
  return i18n.t(fit.verdict === "runsSlowly" ? "models.fit.slow" : "models.fit.speed", { speed, where });
}

/** "5.8 GB" as the backend writes it, in the window's language; as it came when it is not such a size. */
function gigabytes(words: string): string {
  const size = /^(\d+(?:\.\d+)?) GB$/.exec(words);
  return size ? humanSize(Number(size[1]) * 1e9) : words;
}

/** "English, Chinese, French and 26 more": a model's languages, most fluent first. */
export function languagesWords(codes: string[] | undefined, shown = 5): string | null {
  if (!codes || codes.length === 0) return null;
  const names = codes.slice(0, shown).map((code) => languageName(code));
  const more = codes.length - names.length;
  return more > 0 ? i18n.t("models.languagesMore", { names: names.join(", "), count: more }) : names.join(", ");
}

/** The offer's account of what writing with `offer` changes here, sentence by sentence. */
export function offerChanges(offer: Offer, bundledParameters: number | null): string[] {
  const richer =
    offer.parameters && bundledParameters
      ? i18n.t("models.offer.richerThan", { offer: humanCount(offer.parameters), bundled: humanCount(bundledParameters) })
      : i18n.t("models.offer.richer");
  const needs = [
    offer.size ? i18n.t("models.offer.download", { size: humanSize(offer.size) }) : i18n.t("models.offer.someDownload"),
    offer.ram ? i18n.t("models.offer.memory", { size: humanSize(offer.ram) }) : null,
    offer.fit ? i18n.t("models.offer.speedHere", { speed: speedWords(offer.fit) }) : null,
  ].filter(Boolean);
  const sentence = needs.join(", ");
  return [
    richer,
    `${sentence.charAt(0).toLocaleUpperCase(i18n.language)}${sentence.slice(1)}.`,
    i18n.t("models.offer.meanwhile"),
  ];
}
