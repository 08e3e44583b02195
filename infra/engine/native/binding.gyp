# infra/engine/native/binding.gyp: node-gyp build of the native engine backend (C++17, node-addon-api, N-API only).
{
  "targets": [
    {
      "target_name": "searchgym_native",
      "sources": ["src/addon.cc", "src/gemm.cc", "src/ops.cc", "src/decode.cc", "src/pool.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17"],
      "cflags_cc": ["-std=c++17", "-O3", "-fno-math-errno", "-pthread"],
      "ldflags": ["-pthread"],
      "xcode_settings": { "OTHER_CPLUSPLUSFLAGS": ["-std=c++17", "-O3"] }
    }
  ]
}
