// Two-pass drawing: what does not move (planes, static bodies, the search tree: layer STATIC) is
// drawn into an off-screen colour + depth buffer only when the camera, the size or a static layer
// changes; every frame copies that buffer (colour and depth) to the canvas and draws what moves
// (layer MOVING) over it. A 300,000-segment tree costs nothing during playback, as in the
// desktop viewer, which caches its tree layer too. Lights must be on both layers.
import * as THREE from "three";

export const STATIC = 1;
export const MOVING = 2;

export function onLayer(obj, layer) {
  obj.traverse((o) => o.layers.set(layer));
}

// Whether WebGL runs on a software rasterizer (SwiftShader, llvmpipe): then no multisampling,
// which doubles the cost of every pixel there.
export function softwareGL() {
  try {
    const gl = document.createElement("canvas").getContext("webgl2");
    if (!gl) return false;
    const ext = gl.getExtension("WEBGL_debug_renderer_info");
    const name = ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
    gl.getExtension("WEBGL_lose_context")?.loseContext();
    return /swiftshader|llvmpipe|softpipe|software/i.test(String(name));
  } catch {
    return false;
  }
}

const VERT = `void main() { gl_Position = vec4(position.xy, 0.0, 1.0); }`;
// texelFetch: one texel per pixel, no filtering; no colour conversion (the page draws without
// colour management: see player.js)
const FRAG = `uniform sampler2D tColor;
uniform sampler2D tDepth;
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  gl_FragColor = texelFetch(tColor, p, 0);
  gl_FragDepth = texelFetch(tDepth, p, 0).r;
}`;

export class CachedStaticLayer {
  constructor(renderer, samples) {
    this.renderer = renderer;
    this.target = new THREE.WebGLRenderTarget(1, 1, {
      type: THREE.UnsignedByteType,
      samples,
      depthTexture: new THREE.DepthTexture(1, 1),
    });
    this.quad = new THREE.Mesh(new THREE.PlaneGeometry(2, 2), new THREE.ShaderMaterial({
      uniforms: { tColor: { value: this.target.texture }, tDepth: { value: this.target.depthTexture } },
      vertexShader: VERT,
      fragmentShader: FRAG,
      depthTest: true,
      depthWrite: true,
      depthFunc: THREE.AlwaysDepth,
    }));
    this.quad.frustumCulled = false;
    this.quadScene = new THREE.Scene();
    this.quadScene.add(this.quad);
    this.quadCamera = new THREE.OrthographicCamera(-1, 1, 1, -1, 0, 1);
    this.stale = true;
  }

  setSize(w, h) {
    this.target.setSize(w, h);
    this.stale = true;
  }

  render(scene, camera) {
    const r = this.renderer;
    const layers = camera.layers.mask;
    if (this.stale) {
      this.staticDraws = (this.staticDraws || 0) + 1;
      camera.layers.set(STATIC);
      r.setRenderTarget(this.target);
      r.render(scene, camera);
      r.setRenderTarget(null);
      this.stale = false;
    }
    r.autoClear = false;
    r.clear();
    r.render(this.quadScene, this.quadCamera);
    camera.layers.set(MOVING);
    r.render(scene, camera);
    r.autoClear = true;
    camera.layers.mask = layers;
  }

  dispose() {
    this.target.depthTexture.dispose();
    this.target.dispose();
    this.quad.geometry.dispose();
    this.quad.material.dispose();
  }
}
