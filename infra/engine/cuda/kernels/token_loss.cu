// infra/engine/cuda/kernels/token_loss.cu: the per-token policy-gradient loss of infra/engine/losses.ts
// (importance_sampling, ppo with clip(ρ, 1−εlow, 1+εhigh), cross_entropy; optional k3 KL to a reference) with its
// derivative in the new log-prob, both weighted by the token's mask weight. [N] → loss [N], dlogp [N].
#include "common.cuh"

__global__ void sgTokenLoss(const float *__restrict__ logp, const float *__restrict__ oldLogp, const float *__restrict__ adv,
                            const float *__restrict__ weight, const float *__restrict__ refLogp, int N, int kind, float lo,
                            float hi, float beta, float *__restrict__ loss, float *__restrict__ dlogp) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  const float lp = logp[n], w = weight[n];
  float l, d;
  if (kind == SG_LOSS_CE) {
    loss[n] = -lp * w;
    dlogp[n] = -w;
    return;
  }
  const float ratio = expf(lp - oldLogp[n]), a = adv[n];
  if (kind == SG_LOSS_IS) {
    l = -ratio * a;
    d = -ratio * a;
  } else {
    const float unclipped = ratio * a;
    const float clipped = fminf(fmaxf(ratio, 1.0f - lo), 1.0f + hi) * a;
    const float obj = fminf(unclipped, clipped);
    l = -obj;
    d = obj < unclipped ? 0.0f : -unclipped;
  }
  if (beta > 0.0f) {
    const float diff = refLogp[n] - lp;
    l += beta * (expf(diff) - diff - 1.0f);
    d += beta * (1.0f - expf(diff));
  }
  loss[n] = l * w;
  dlogp[n] = d * w;
}

void sg_token_loss(const float *logp, const float *oldLogp, const float *adv, const float *weight, const float *refLogp, int N,
                   int kind, float epsLow, float epsHigh, float klBeta, float *loss, float *dlogp, void *stream) {
  if (N <= 0) return;
  SG_LAUNCH(sgTokenLoss, sgCeilDiv(N, 256), 256, stream, logp, oldLogp, adv, weight, refLogp, N, kind, epsLow, epsHigh, klBeta,
            loss, dlogp);
}
