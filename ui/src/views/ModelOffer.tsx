// The first start's offer: when the catalog model this machine runs best is
// not installed, the window offers it in one click — "Download and write
// with NAME" — saying what that changes (richer prose, the download, the
// memory it needs, its speed here; the bundled model plays meanwhile). The
// click downloads it with progress and chooses it as the writer. "Not now"
// dismisses the offer for good (remembered in this window's storage).

import { useCallback, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asAppError, type AppError, type DownloadProgress, type ModelsView, type Offer } from "../api";
import { sentenceOf } from "../errors";
import { offerChanges } from "../models";
import { DownloadBar } from "./DownloadBar";

const KEY = "narratoria.modelOfferDismissed";

function dismissedBefore(): boolean {
  try {
    return window.localStorage.getItem(KEY) === "1";
  } catch {
    return false;
  }
}

/** Whether the player said "Not now" (remembered in this window's storage), and a way to say it. */
export function useOfferDismissed(): [boolean, () => void] {
  const [dismissed, setDismissed] = useState(dismissedBefore);
  const dismiss = useCallback(() => {
    setDismissed(true);
    try {
      window.localStorage.setItem(KEY, "1");
    } catch {
      // Storage may be unavailable; the choice then lasts until the window closes.
    }
  }, []);
  return [dismissed, dismiss];
}

/** The recommended catalog narrator when it is not installed (it is then among `available`). */
export function offerOf(library: ModelsView | null): Offer | null {
  if (!library?.recommended) return null;
  return library.available.find((e) => e.name === library.recommended && e.kind === "narrator") ?? null;
}

/** The parameters of the bundled narrator, to compare the offer with. */
function bundledParameters(library: ModelsView): number | null {
  const bundled = library.installed.find((m) => m.readOnly && m.kind === "narrator" && m.parameters);
  return bundled?.parameters ?? null;
}

/**
 * The banner. `refreshKey` changes when the models may have changed (a
 * model loaded, a tab switched to): the offer is asked for again then.
 */
export function ModelOffer({ refreshKey, onChosen }: { refreshKey: string; onChosen: () => void }) {
  const { t } = useTranslation();
  const [dismissed, dismiss] = useOfferDismissed();
  const [library, setLibrary] = useState<ModelsView | null>(null);
  const [progress, setProgress] = useState<DownloadProgress | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const [error, setError] = useState<AppError | null>(null);

  useEffect(() => {
    if (dismissed) return;
    let current = true;
    api.models().then(
      (l) => current && setLibrary(l),
      () => current && setLibrary(null),
    );
    return () => {
      current = false;
    };
  }, [dismissed, refreshKey]);

  const offer = offerOf(library);
  if (dismissed) return null;
  if (chosen) {
    return (
      <div className="banner offer" role="status" data-testid="model-offer-done" data-name={chosen}>
        <span>{t("offer.done", { name: chosen })}</span>
        <button className="link" onClick={() => setChosen(null)} aria-label={t("common.dismiss")}>
          ×
        </button>
      </div>
    );
  }
  if (!library || !offer) return null;

  const take = async () => {
    setError(null);
    setProgress({ done: 0, total: offer.size ?? null });
    try {
      await api.downloadModel(offer.name, setProgress);
      await api.useModel(offer.name, "writer");
      setChosen(offer.name);
      onChosen();
    } catch (e) {
      setError(asAppError(e));
    } finally {
      setProgress(null);
    }
  };

  return (
    <div className="banner offer" role="region" aria-label={t("offer.label")} data-testid="model-offer" data-name={offer.name}>
      <div className="offer-text">
        <strong>{t("offer.canWrite", { name: offer.name })}</strong>{" "}
        <span className="muted">— {offer.description}</span>
        <div className="small" data-testid="model-offer-changes">
          {offerChanges(offer, bundledParameters(library)).join(" ")}
        </div>
        {error && (
          <div className="error-text small" role="alert" data-testid="model-offer-error" data-code={error.code}>
            {sentenceOf(error)} <span className="error-message">{error.message}</span>
          </div>
        )}
        {progress && (
          <DownloadBar progress={progress} size={offer.size} testId="model-offer-progress" />
        )}
      </div>
      <div className="offer-actions">
        <button onClick={take} disabled={progress !== null} data-testid="model-offer-take">
          {t("offer.take", { name: offer.name })}
        </button>
        <button className="link" onClick={dismiss} disabled={progress !== null} data-testid="model-offer-dismiss">
          {t("offer.notNow")}
        </button>
      </div>
    </div>
  );
}
