// What this machine can run: a line describing the machine, how a model
// would run here (its verdict, speed and why), and the catalog's models to
// download, each with what it needs (docs/models.md, "What this machine can
// run").

import { Trans, useTranslation } from "react-i18next";
import type { DownloadProgress, Fit, Machine, Offer } from "../api";
import { DownloadBar } from "./DownloadBar";
import { fitReason, humanCount, humanSize, languagesWords, machineWords, verdictWords } from "../models";
import { formatNumber } from "../i18n/format";

/** "This machine: 2 cores (avx, avx2), 24.7 GB of memory free of 25.3 GB, no graphics card in use". */
export function MachineLine({ machine, recommended }: { machine: Machine; recommended: string | null }) {
  const { t } = useTranslation();
  return (
    <>
      <p className="machine small" data-testid="machine" title={machine.cpu ?? undefined}>
        <span className="muted">{t("catalog.thisMachine")}</span> {machineWords(machine)}
      </p>
      <p className="small">
        {recommended ? (
          <Trans
            i18nKey="catalog.recommended"
            values={{ name: recommended }}
            components={{ muted: <span className="muted" />, name: <strong data-testid="recommended-name" /> }}
          />
        ) : (
          <span className="muted" data-testid="recommended-name">
            {t("catalog.noneRunsWell")}
          </span>
        )}
      </p>
    </>
  );
}

/**
 * A model's verdict here and why: "runs well — about 15 tokens/s on the
 * processor", "runs slowly — measured 4 tokens/s on the processor: slower
 * than a story is read", "does not fit — needs 5.8 GB of memory, 3.0 GB is free"
 * (the reason worded in the window's language from the fit's numbers).
 */
export function FitLine({ fit }: { fit: Fit }) {
  return (
    <span
      className={`fit verdict-${fit.verdict}`}
      data-testid="model-fit"
      data-verdict={fit.verdict}
      data-measured={fit.measured ? "true" : "false"}
      data-tokens-per-second={fit.tokensPerSecond.toFixed(1)}
    >
      <strong data-testid="verdict">{verdictWords(fit.verdict)}</strong>
      <span> — {fitReason(fit)}</span>
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
  const { t } = useTranslation();
  const languages = languagesWords(e.languages);
  const facts = [
    e.size ? t("catalog.download", { size: humanSize(e.size) }) : t("catalog.sizeUnknown"),
    e.parameters ? t("model.parameters", { value: humanCount(e.parameters) }) : null,
    e.ram ? t("catalog.memory", { size: humanSize(e.ram) }) : null,
    e.context ? t("catalog.context", { tokens: formatNumber(e.context) }) : null,
    e.license,
    languages ? t("catalog.writes", { languages }) : null,
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
          {t("model.recommended")}
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
          {t("catalog.here")} <FitLine fit={e.fit} />
        </div>
      )}
      {progress ? (
        <DownloadBar progress={progress} size={e.size} testId="download-progress" />
      ) : (
        <button onClick={onDownload} data-testid="model-download">
          {t("catalog.downloadButton")}
        </button>
      )}
    </li>
  );
}
