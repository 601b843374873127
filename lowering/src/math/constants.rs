// Constants of the math algorithms, computed with 2000-bit arithmetic (mpmath): split values of
// π/2, ln 2, 1/ln 2, 1/ln 10, log10(2), π/4; 1536 bits of 2/π; Chebyshev fits for erfc.

const PIO2_1: f64 = f64::from_bits(0x3ff921fb54400000);
const PIO2_2: f64 = f64::from_bits(0x3dd0b4611a600000);
const PIO2_3: f64 = f64::from_bits(0x3ba3198a2e037073);
const PIO2_HI: f64 = f64::from_bits(0x3ff921fb54442d18);
const PIO2_LO: f64 = f64::from_bits(0x3c91a62633145c07);
const LN2_HI: f64 = f64::from_bits(0x3fe62e42fee00000);
const LN2_LO: f64 = f64::from_bits(0x3dea39ef35793c76);
const LN2_R_HI: f64 = f64::from_bits(0x3fe62e42fefa39ef);
const LN2_R_LO: f64 = f64::from_bits(0x3c7abc9e3b39803f);
const INV_LN2_HI: f64 = f64::from_bits(0x3ff71547652b82fe);
const INV_LN2_LO: f64 = f64::from_bits(0x3c7777d0ffda0d24);
const INV_LN10_HI: f64 = f64::from_bits(0x3fdbcb7b1526e50e);
const INV_LN10_LO: f64 = f64::from_bits(0x3c695355baaafad3);
const LOG10_2_HI: f64 = f64::from_bits(0x3fd3441350800000);
const LOG10_2_LO: f64 = f64::from_bits(0x3ddf79fef311f12b);
const PIO4_HI: f64 = f64::from_bits(0x3fe921fb54442d18);
const PIO4_LO: f64 = f64::from_bits(0x3c81a62633145c07);
const TWO_OVER_PI: [u32; 50] = [
    0, 0, 0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab,
    0xdebbc561, 0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5,
    0x2ebb4484, 0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff,
    0xde05980f, 0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7,
    0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab, 0xf0cfbc20,
    0x9af4361d, 0xa9e39161, 0x5ee61b08, 0x6599855f, 0x14a06840, 0x8dffd880, 0x4d732731, 0x06061556,
    0xca73a8c9,
];

/// Chebyshev coefficients of erfc(x)·exp(x²) on [1, 2], [2, 3.5], [3.5, 6] (c0 not halved).
#[rustfmt::skip]
const ERFC_CHEB: [&[u64]; 3] = [
&[0x3fe5361ac5e93132, 0xbfb5c2b3398a6184, 0x3f846141b3eb5f93, 0xbf51b66a455fc3d1, 0x3f1ce592d5eea8d0, 0xbee64e9adacc813c, 0x3eb0665602a88e46, 0xbe771472963d64e6, 0x3e3f36ee0e516f2e, 0xbe045a677ddd7286, 0x3dc9aa2dc95d3dc2, 0xbd8f5e34a85c21cf, 0x3d529e63d5f2572b, 0xbd1581ada2bf92a4, 0x3cd835ff7fb1559d, 0xbc9a99a53f250615, 0x3c5c8f04989af837],
&[0x3fd986f2a69a0d07, 0xbfa94856b3fe3a4f, 0x3f77ec344f3dfea6, 0xbf45bb83e38b8d0e, 0x3f13078d71e8774d, 0xbee01cc0fcdbedc0, 0x3eaa743b6aeedfe1, 0xbe751a733b566b1f, 0x3e40641c7acf7c46, 0xbe08d52179e5bb6d, 0x3dd25f6a96579892, 0xbd9a9697456702ed, 0x3d62d64b5e9a9159, 0xbd2a2943844a30cb, 0x3cf1d28e32b272d9, 0xbcb7d803505cdc52, 0x3c7f58a5870dde67, 0xbc4443044370b948],
&[0x3fcebf9b7735383a, 0xbf9f8380e7b8e54c, 0x3f6faa534ccf45bc, 0xbf3f3a44b8f7fd68, 0x3f0e40dc8f57beaa, 0xbedcd14a9a665dc9, 0x3eab027fe6c03c73, 0xbe78ed42da6318e5, 0x3e46aa6b1c78670d, 0xbe145165adb0b84e, 0x3de1f714421ed3a1, 0xbdaf5a1cb8690894, 0x3d7b02804aa65792, 0xbd46fbb68def8beb, 0x3d13531297715f52, 0xbce00f9a33fd3061, 0x3caa6605b69e9abb, 0xbc757590c20653dc, 0x3c41428636d1654c],
];
