//! The math algorithms evaluated on the CPU (IEEE f64, wrapping integers): the reference for the
//! unit tests, computing exactly what the emitted code computes.

use super::{Ops, TWO_OVER_PI};

pub struct CpuOps;

impl Ops for CpuOps {
    type F = f64;
    type I = i64;
    type B = bool;
    type W = u128;
    fn f(&mut self, c: f64) -> f64 {
        c
    }
    fn i(&mut self, c: i64) -> i64 {
        c
    }
    fn add(&mut self, a: &f64, b: &f64) -> f64 {
        a + b
    }
    fn sub(&mut self, a: &f64, b: &f64) -> f64 {
        a - b
    }
    fn mul(&mut self, a: &f64, b: &f64) -> f64 {
        a * b
    }
    fn div(&mut self, a: &f64, b: &f64) -> f64 {
        a / b
    }
    fn fma(&mut self, a: &f64, b: &f64, c: &f64) -> f64 {
        a.mul_add(*b, *c)
    }
    fn neg(&mut self, a: &f64) -> f64 {
        -a
    }
    fn abs(&mut self, a: &f64) -> f64 {
        a.abs()
    }
    fn rint(&mut self, a: &f64) -> f64 {
        a.round_ties_even()
    }
    fn sqrt(&mut self, a: &f64) -> f64 {
        a.sqrt()
    }
    fn lt(&mut self, a: &f64, b: &f64) -> bool {
        a < b
    }
    fn eq(&mut self, a: &f64, b: &f64) -> bool {
        a == b
    }
    fn is_nan(&mut self, a: &f64) -> bool {
        a.is_nan()
    }
    fn sel(&mut self, c: &bool, a: &f64, b: &f64) -> f64 {
        if *c { *a } else { *b }
    }
    fn isel(&mut self, c: &bool, a: &i64, b: &i64) -> i64 {
        if *c { *a } else { *b }
    }
    fn float_bits(&mut self, a: &f64) -> i64 {
        a.to_bits() as i64
    }
    fn bits_float(&mut self, a: &i64) -> f64 {
        f64::from_bits(*a as u64)
    }
    fn f2i(&mut self, a: &f64) -> i64 {
        *a as i64
    }
    fn i2f(&mut self, a: &i64) -> f64 {
        *a as f64
    }
    fn iadd(&mut self, a: &i64, b: &i64) -> i64 {
        a.wrapping_add(*b)
    }
    fn isub(&mut self, a: &i64, b: &i64) -> i64 {
        a.wrapping_sub(*b)
    }
    fn iand(&mut self, a: &i64, b: &i64) -> i64 {
        a & b
    }
    fn ior(&mut self, a: &i64, b: &i64) -> i64 {
        a | b
    }
    fn shl(&mut self, a: &i64, s: u32) -> i64 {
        a.wrapping_shl(s)
    }
    fn lshr(&mut self, a: &i64, s: u32) -> i64 {
        ((*a as u64) >> s) as i64
    }
    fn ashr(&mut self, a: &i64, s: u32) -> i64 {
        a >> s
    }
    fn shl_var(&mut self, a: &i64, s: &i64) -> i64 {
        a.wrapping_shl(*s as u32)
    }
    fn ieq(&mut self, a: &i64, b: &i64) -> bool {
        a == b
    }
    fn ilt(&mut self, a: &i64, b: &i64) -> bool {
        a < b
    }
    fn and(&mut self, a: &bool, b: &bool) -> bool {
        *a && *b
    }
    fn or(&mut self, a: &bool, b: &bool) -> bool {
        *a || *b
    }
    fn not(&mut self, a: &bool) -> bool {
        !*a
    }
    fn clz(&mut self, a: &i64) -> i64 {
        (*a as u64).leading_zeros() as i64
    }
    fn table(&mut self, index: &i64) -> i64 {
        TWO_OVER_PI[*index as usize] as i64
    }
    fn wide(&mut self, a: &i64) -> u128 {
        *a as u64 as u128
    }
    fn wconst(&mut self, c: u128) -> u128 {
        c
    }
    fn wadd(&mut self, a: &u128, b: &u128) -> u128 {
        a.wrapping_add(*b)
    }
    fn wsub(&mut self, a: &u128, b: &u128) -> u128 {
        a.wrapping_sub(*b)
    }
    fn wmul(&mut self, a: &u128, b: &u128) -> u128 {
        a.wrapping_mul(*b)
    }
    fn wand(&mut self, a: &u128, b: &u128) -> u128 {
        a & b
    }
    fn wor(&mut self, a: &u128, b: &u128) -> u128 {
        a | b
    }
    fn wshl(&mut self, a: &u128, s: u32) -> u128 {
        a << s
    }
    fn wlshr(&mut self, a: &u128, s: u32) -> u128 {
        a >> s
    }
    fn wshl_var(&mut self, a: &u128, s: &i64) -> u128 {
        a << (*s as u32)
    }
    fn narrow(&mut self, a: &u128) -> i64 {
        *a as u64 as i64
    }
    fn wsel(&mut self, c: &bool, a: &u128, b: &u128) -> u128 {
        if *c { *a } else { *b }
    }
}

/// `name` of [`super::FUNCTIONS`] at `args`, as the emitted code computes it in f64.
pub fn eval(name: &str, args: &[f64]) -> f64 {
    super::eval(&mut CpuOps, name, args)
}
