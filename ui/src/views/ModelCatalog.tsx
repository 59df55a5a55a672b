// What this machine can run: a line describing the machine, how a model
// would run here (its verdict, speed and why), and the catalog's models to
// download, each with what it needs (docs/models.md, "What this machine can
// run").

import type { DownloadProgress, Fit, Machine, Offer } from "../api";
import { DownloadBar } from "./DownloadBar";
import { VERDICT_WORDS, humanCount, humanSize, languagesWords, machineWords, speedWords } from "../models";

/** "This machine: 2 cores (avx, avx2), 24.7 GB of memory free of 25.3 GB, no graphics card in use". */
export function MachineLine({ machine, recommended }: { machine: Machine; recommended: string | null }) {
  return (
    <>
      <p className="machine small" data-testid="machine" title={machine.cpu ?? undefined}>
        <span className="muted">This machine:</span> {machineWords(machine)}
      </p>
      <p className="small">
        {recommended ? (
          <>
            <span className="muted">Recommended for this machine:</span>{" "}
            <strong data-testid="recommended-name">{recommended}</strong> (the largest model that runs well here)
          </>
        ) : (
          <span className="muted" data-testid="recommended-name">
            No model in the catalog runs well on this machine.
          </span>
        )}
      </p>
    </>
  );
}

/**
 * A model's verdict here and why: "runs well — about 15 tokens/s on the
 * processor", "runs slowly — measured 4 tokens/s on the processor: slower
 * than a story is read", "does not fit — needs 5.8 GB of memory, 3.0 GB is free".
 * The reason names the speed; when it does not, the speed is added.
 */
export function FitLine({ fit }: { fit: Fit }) {
  const namesSpeed = fit.reason.includes("tokens/s");
  return (
    <span
      className={`fit verdict-${fit.verdict}`}
      data-testid="model-fit"
      data-verdict={fit.verdict}
      data-measured={fit.measured ? "true" : "false"}
      data-tokens-per-second={fit.tokensPerSecond.toFixed(1)}
    >
      <strong data-testid="verdict">{VERDICT_WORDS[fit.verdict]}</strong>
      <span> — {fit.reason}</span>
      {!namesSpeed && fit.verdict !== "doesNotFit" && <span> ({speedWords(fit)})</span>}
    </span>
  );
}

/** A model to download: what it is and needs, how it would run here, and its Download button or progress. */
export function CatalogRow({
  e,
  recommended,
  progress,
  onDownload,
}: {
  e: Offer;
  recommended: boolean;
  progress: DownloadProgress | undefined;
  onDownload: () => void;
}) {
  const languages = languagesWords(e.languages);
  const facts = [
    e.size ? `${humanSize(e.size)} download` : "size unknown",
    e.parameters ? `${humanCount(e.parameters)} parameters` : null,
    e.ram ? `needs about ${humanSize(e.ram)} of memory` : null,
    e.context ? `${e.context.toLocaleString("en")} tokens of context` : null,
    e.license,
    languages ? `writes ${languages}` : null,
  ].filter(Boolean);
  return (
    <li
      data-testid="catalog-row"
      data-name={e.name}
      data-recommended={recommended ? "true" : "false"}
      className={recommended ? "recommended" : undefined}
    >
      <strong>{e.name}</strong>
      {recommended && (
        <span className="badge recommended-badge" data-testid="recommended">
          recommended for this machine
        </span>
      )}{" "}
      — {e.description}
      <div className="muted small" data-testid="catalog-facts">
        {facts.join(" · ")}
      </div>
      {e.notes && (
        <div className="muted small" data-testid="catalog-notes">
          {e.notes}
        </div>
      )}
      {e.fit && (
        <div className="small">
          Here: <FitLine fit={e.fit} />
        </div>
      )}
      {progress ? (
        <DownloadBar progress={progress} size={e.size} testId="download-progress" />
      ) : (
        <button onClick={onDownload} data-testid="model-download">
          Download
        </button>
      )}
    </li>
  );
}
