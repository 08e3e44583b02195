# Sourced by the proposed launch scripts in this folder (the export would inline it). Runs from any folder: the data
# sits next to the script, the gym is started by $SEARCHGYM (an executable: the installed `searchgym`, or the
# checkout's bin/searchgym.mjs), waited for on /health, and stopped by a trap on exit.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORLD=${WORLD:?set WORLD to the world folder}
MODEL=${MODEL:?set MODEL to the base model (a Hugging Face id or a local folder)}
DATA=${DATA:-$HERE}
CKPT=${CKPT:-$PWD/checkpoints/searchgym-two-stage}
PORT=${PORT:-8000}
SEARCHGYM=${SEARCHGYM:-searchgym}
command -v "$SEARCHGYM" >/dev/null || { echo "no $SEARCHGYM on PATH: install searchgym or set SEARCHGYM=/path/to/bin/searchgym.mjs" >&2; exit 2; }
"$SEARCHGYM" gym serve "$WORLD" --host 127.0.0.1 --port "$PORT" ${GYM_ARGS:-} &
GYM_PID=$!
trap 'kill "$GYM_PID" 2>/dev/null || true; wait "$GYM_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 ${GYM_WAIT_S:-120}); do
  curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break
  kill -0 "$GYM_PID" 2>/dev/null || { echo "gym serve exited before it was ready" >&2; exit 1; }
  sleep 1
done
curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null || { echo "gym not ready on port $PORT" >&2; exit 1; }
